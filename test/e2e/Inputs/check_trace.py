"""Checks a program's --trace file (Chrome trace-event JSON) against the format and against
the run's --stats=json report:
  - every event has name, ph, ts, pid, tid; spans ("X") have dur; counters ("C") numbers;
  - one "run" span holds every phase span, phases follow one another without overlapping,
    and a merge span lies inside a phase span of the same phase;
  - each counter's samples come in time order and never go down;
  - the last "bytes" sample is the report's total read and written bytes, and each phase
    span's elements and bytes are the report's for that phase (phases that ran once);
  - a phase whose element count was known (expected_elements > 0) put through exactly that
    many: the progress bar's total was the run's own count.
Usage: check_trace.py TRACE.json STATS.json [PHASE=EXPECTED ...]"""
import json
import sys

trace = json.load(open(sys.argv[1]))
stats = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
assert isinstance(events, list) and events, "no traceEvents"
for e in events:
    for key in ("name", "ph", "pid", "tid"):
        assert key in e, f"event lacks {key}: {e}"
    if e["ph"] in "XC":
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, f"bad ts: {e}"
    if e["ph"] == "X":
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, f"bad dur: {e}"
    if e["ph"] == "C":
        assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), f"bad counter: {e}"

spans = [e for e in events if e["ph"] == "X"]
runs = [e for e in spans if e["cat"] == "run"]
phases = sorted((e for e in spans if e["cat"] == "phase"), key=lambda e: e["ts"])
merges = [e for e in spans if e["cat"] == "merge"]
assert len(runs) == 1, f"{len(runs)} run spans"
run = runs[0]
end = lambda e: e["ts"] + e["dur"]
eps = 0.01  # microseconds: the times are printed to 1 ns
for p in phases:
    assert run["ts"] - eps <= p["ts"] and end(p) <= end(run) + eps, f"phase {p['name']} outside the run"
for a, b in zip(phases, phases[1:]):
    assert end(a) <= b["ts"] + eps, f"phases overlap: {a['name']} and {b['name']}"
for m in merges:
    assert any(p["args"]["phase"] == m["args"]["phase"] and p["ts"] - eps <= m["ts"] and end(m) <= end(p) + eps
               for p in phases), f"merge span outside its phase: {m}"

last = {}
for e in (e for e in events if e["ph"] == "C"):
    prev = last.get(e["name"])
    if prev:
        assert e["ts"] >= prev["ts"], f"counter {e['name']} goes back in time at {e['ts']}"
        for k, v in e["args"].items():
            assert v >= prev["args"][k], f"counter {e['name']}.{k} goes down at {e['ts']}: {prev['args'][k]} -> {v}"
    last[e["name"]] = e
assert last["bytes"]["args"]["read"] == stats["read_bytes"], (last["bytes"], stats["read_bytes"])
assert last["bytes"]["args"]["written"] == stats["write_bytes"], (last["bytes"], stats["write_bytes"])

by_label = {p["label"]: p for p in stats["phases"] if p["runs"] == 1}
for p in phases:
    a = p["args"]
    if p["name"] in by_label:
        s = by_label[p["name"]]
        for key in ("elements", "read_bytes", "write_bytes"):
            assert a[key] == s[key], f"phase {p['name']}: {key} {a[key]} in the trace, {s[key]} in --stats"
    if a["expected_elements"] > 0:
        assert a["elements"] == a["expected_elements"], \
            f"phase {p['name']}: expected {a['expected_elements']} elements, put through {a['elements']}"
for arg in sys.argv[3:]:
    phase, expected = map(int, arg.split("="))
    got = [p["args"]["expected_elements"] for p in phases if p["args"]["phase"] == phase]
    assert got == [expected], f"phase {phase}: expected elements {got}, not [{expected}]"

print(f"trace: {len(phases)} phases in the run span, {len(merges)} intermediate merge spans, "
      f"{sum(1 for e in events if e['ph'] == 'C')} counter samples, totals as in --stats")
for p in phases:
    print(f"phase {p['args']['phase']}: {p['name']}: {p['args']['elements']}/{p['args']['expected_elements']}")
