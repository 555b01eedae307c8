"""Independent PageRank of examples/pagerank.flow's random graph (regenerated with Flow's
rand), by plain power iteration; compares ranks.txt (`node rank` lines) within 1e-9.
Usage: pagerank_check.py NODES EDGES ROUNDS ranks.txt"""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
from flow_rand import Rand  # noqa: E402

nodes, edges, rounds = (int(x) for x in sys.argv[1:4])
r = Rand(1, stage=1)  # the script's generate
pairs = [(r.at(i).rand(nodes), r.rand(nodes)) for i in range(edges)]
out = [0] * nodes
for s, _ in pairs:
    out[s] += 1
rank = [1.0 / nodes] * nodes
for _ in range(rounds):
    received = [0.0] * nodes
    for s, d in pairs:
        received[d] += rank[s] / out[s]
    rank = [0.15 / nodes + 0.85 * x for x in received]
got = {}
for line in open(sys.argv[4]):
    node, value = line.split()
    got[int(node)] = float(value)
assert sorted(got) == list(range(nodes)), "not one rank per node"
worst = max(abs(got[i] - rank[i]) for i in range(nodes))
assert worst < 1e-9, f"ranks differ by up to {worst}"
print(f"pagerank: {nodes} ranks match, sum {sum(rank):.6f}")
