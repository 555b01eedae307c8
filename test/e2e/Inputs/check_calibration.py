"""Compares flowc explain's static and calibrated estimates (--format json) with what a
program run at the same params measured (--stats=json): the calibrated total read+write
must be within TOLERANCE of the measurement, the static one must not (it is the case the
calibration is for). Also checks that the calibration says which params it scaled, and
that the estimates the program itself shows (--stats: "estimate", and "calibrated" when
it was built with --calibrate) are explain's.

usage: check_calibration.py STATIC.json CALIBRATED.json STATS.json TOLERANCE"""
import json
import sys

static_plan, calibrated_plan, stats = (json.load(open(path)) for path in sys.argv[1:4])
tolerance = float(sys.argv[4])


def total(plan):
    return plan["total"]["read_bytes"] + plan["total"]["write_bytes"]


measured = stats["read_bytes"] + stats["write_bytes"]
if measured <= 0:
    sys.exit("the run measured no I/O: nothing to compare")
for name, plan in (("static", static_plan), ("calibrated", calibrated_plan)):
    error = (total(plan) - measured) / measured
    print(f"{name}: estimate {total(plan)}, measured {measured}, off by {error:+.1%}", file=sys.stderr)
static_error = abs(total(static_plan) - measured) / measured
calibrated_error = abs(total(calibrated_plan) - measured) / measured
print("calibrated within tolerance" if calibrated_error <= tolerance else "calibrated OFF")
print("static outside tolerance" if static_error > tolerance else "static WITHIN (the test shows nothing)")
print("static marked upper bound" if static_plan["total"].get("upper_bound") else "static NOT marked")
print("calibrated not marked" if not calibrated_plan["total"].get("upper_bound") else "calibrated MARKED")
calibration = calibrated_plan["calibration"]
print("scaled:", ", ".join(calibration["scaled"]))
marked = sorted(n["name"] for n in calibrated_plan["nodes"] if "calibrated" in n)
print("calibrated nodes:", ", ".join(marked))
# A program built with --calibrate: its --stats shows both estimates, priced at run time
# by the runtime's models, which must agree with explain's to the rounding.
for key, plan, name in (("estimate", static_plan, "static estimate = explain's"),
                        ("calibrated", calibrated_plan, "calibrated estimate = explain --calibrate's")):
    if key not in stats:
        continue
    ran = stats[key]["read_bytes"] + stats[key]["write_bytes"]
    same = abs(ran - total(plan)) <= max(16, 1e-6 * total(plan))
    print(f"program's {name}" + (f", by {stats[key]['by']}" if key == "calibrated" else "") if same
          else f"program's {key} estimate {ran} differs from explain's {total(plan)}")
