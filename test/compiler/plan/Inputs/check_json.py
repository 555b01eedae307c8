"""Checks that `flowc explain --format json` parses and has the documented fields."""
import json
import sys

plan = json.load(open(sys.argv[1]))
for key in ("nodes", "phases", "total", "materialized_total", "memory_bytes", "block_bytes", "params"):
    assert key in plan, f"missing {key}"
for node in plan["nodes"]:
    for key in ("id", "kind", "name", "phase", "elements", "element_bytes", "memory_bytes", "passes",
                "read_bytes", "write_bytes"):
        assert key in node, f"node {node.get('id')} lacks {key}"
for total in ("total", "materialized_total"):
    assert set(plan[total]) == {"read_bytes", "write_bytes"}, plan[total]
assert sum(n["read_bytes"] for n in plan["nodes"]) == plan["total"]["read_bytes"]
assert sum(n["write_bytes"] for n in plan["nodes"]) == plan["total"]["write_bytes"]
print("json ok")
