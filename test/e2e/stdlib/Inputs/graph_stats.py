"""graph_stats.py STATS.json below|above BYTES: asserts that a program's --stats=json report
shows fewer (below) or more (above) than BYTES written in total, to tell a run that kept its
sorts and queues in memory from one that spilled them. Prints the measured totals beside the
program's own estimate."""
import json
import sys

stats = json.load(open(sys.argv[1]))
how, limit = sys.argv[2], int(sys.argv[3])
written, est = stats['write_bytes'], stats['estimate']
print(f"read {stats['read_bytes']} written {written} (estimate read {est['read_bytes']:.0f} "
      f"written {est['write_bytes']:.0f})")
if how == 'below':
    assert written < limit, f"wrote {written} bytes, expected below {limit}: something spilled"
else:
    assert written > limit, f"wrote {written} bytes, expected above {limit}: nothing spilled"
print(f"written {how} {limit}")
