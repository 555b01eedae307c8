"""Checks the maximal independent set of examples/mis.flow against a Python reference.

Usage: mis_check.py EDGES SEED MIS_BIN. The graph is generated again with Flow's random
numbers (Inputs/flow_rand.py) as the script does: EDGES edges between nodes 0..EDGES/4-1,
self-loops dropped, sorted and duplicate-free. Time-forward processing picks a source
node u (ascending) unless an earlier member w has the edge (w, u). The result must be
independent (no edge (w, u), w < u, joins two members), maximal (every source node not in
the set has such an edge from a member) and equal to the greedy set computed here."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from flow_rand import Rand

edges, seed, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nodes = edges // 4
r = Rand(seed, stage=1)  # the script's generate
graph = set()
for i in range(edges):
    r.at(i)
    src = r.rand(nodes)
    dst = r.rand(nodes)
    if src != dst:
        graph.add((src, dst))
by_src = {}
for s, d in sorted(graph):
    by_src.setdefault(s, []).append(d)
data = open(path, "rb").read()
mis = [struct.unpack_from("<I", data, i)[0] for i in range(0, len(data), 4)]
members = set(mis)
assert mis == sorted(members), "the set is not ascending without repeats"
for w, u in graph:
    if w < u:
        assert not (w in members and u in members), f"edge ({w}, {u}) joins two members"
preds = {}
for w, u in graph:
    if w < u:
        preds.setdefault(u, []).append(w)
for u in by_src:
    if u not in members:
        assert any(w in members for w in preds.get(u, [])), f"{u} could join: not maximal"
expected, blocked = [], set()
for s in sorted(by_src):
    if s in blocked:
        continue
    expected.append(s)
    blocked.update(d for d in by_src[s] if d > s)
assert mis == expected, f"differs from the greedy set: {len(mis)} members against {len(expected)}"
print(f"independent and maximal: {len(mis)} members")
