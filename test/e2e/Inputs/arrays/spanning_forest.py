"""Python reference of spanning_forest.flow: the same generator, the same union-find."""
import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from flow_rand import Rand  # noqa: E402

nodes = int(sys.argv[1])
edges = 2 * nodes
r = Rand(1, stage=1)  # the script's generate
parent = list(range(nodes))
forest = []
for i in range(edges):
    r.at(i)
    s = r.rand(nodes)
    d = r.rand(nodes)
    a = s
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    b = d
    while parent[b] != b:
        parent[b] = parent[parent[b]]
        b = parent[b]
    if a != b:
        parent[max(a, b)] = min(a, b)
        forest.append((s, d))
roots = sum(1 for i in range(nodes) if parent[i] == i)
with open(sys.argv[2]) as f:
    got = [tuple(map(int, line.split())) for line in f]
assert got == forest, (len(got), len(forest), got[:5], forest[:5])
assert len(forest) + roots == nodes, (len(forest), roots, nodes)
print("forest: %d edges, %d trees, %d nodes" % (len(forest), roots, nodes))
