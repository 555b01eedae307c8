"""Checks a program's --stats=json report: the documented fields are there, and the
measured total read and write bytes are within TOLERANCE of the estimate, or, with
`exact`, every phase's bytes are the estimate's.
Usage: check_stats.py STATS.json [TOLERANCE | exact]"""
import json
import os
import sys

stats = json.load(open(sys.argv[1]))
exact = len(sys.argv) > 2 and sys.argv[2] == "exact"
tolerance = float(sys.argv[2]) if len(sys.argv) > 2 and not exact else None
for key in ("wall_seconds", "cpu_seconds", "read_bytes", "write_bytes", "io_wait_seconds", "phases", "estimate"):
    assert key in stats, f"missing {key}"
for phase in stats["phases"]:
    for key in ("id", "label", "wall_seconds", "cpu_seconds", "read_bytes", "write_bytes", "io_wait_seconds",
                "estimate"):
        assert key in phase, f"phase lacks {key}"
    # the process's threads cannot compute for more than all the cores for the wall time
    assert 0 <= phase["cpu_seconds"] <= phase["wall_seconds"] * (os.cpu_count() or 1) + 0.05, \
        f"phase {phase['id']}: {phase['cpu_seconds']} s of CPU in {phase['wall_seconds']} s of wall time"
est = stats["estimate"]
print(f"measured read {stats['read_bytes']} write {stats['write_bytes']}; "
      f"estimated read {est['read_bytes']:.0f} write {est['write_bytes']:.0f}")
if tolerance is not None:
    for what in ("read_bytes", "write_bytes"):
        measured, estimated = stats[what], est[what]
        assert estimated > 0, f"no {what} estimate"
        off = abs(measured - estimated) / estimated
        assert off <= tolerance, f"{what}: measured {measured} is {off:.1%} off the estimate {estimated:.0f}"
    print(f"within {tolerance:.0%} of the estimate")

if exact:
    for phase in stats["phases"]:
        for what in ("read_bytes", "write_bytes"):
            measured, estimated = phase[what], phase["estimate"][what]
            assert measured == round(estimated), \
                f"phase {phase['id']} ({phase['label']}) {what}: measured {measured}, estimated {estimated:.0f}"
    print(f"every phase as estimated ({len(stats['phases'])} phases)")
