"""Checks dag_levels.flow's output: the longest path to every node of its layered DAG,
computed here over networkx's topological order of the same graph (an independent
reference). Usage: dag_levels_check.py LAYERS WIDTH dag_longest.txt"""
import sys

import networkx as nx

layers, width, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
g = nx.MultiDiGraph()
n = layers * width
g.add_nodes_from(range(n))
for v in range(n):
    layer = v // width
    if layer + 1 < layers:
        g.add_edge(v, v + width, w=1 + v % 7)
    h = (v * 2654435761 + 12345) % 1000003
    later = layer + 1 + h % 3
    if later < layers:
        g.add_edge(v, later * width + h % width, w=1 + h % 10)
dist = {}
for v in nx.topological_sort(g):
    dist[v] = max((dist[u] + d["w"] for u, _, d in g.in_edges(v, data=True)), default=0)
got = [tuple(map(int, line.split())) for line in open(path)]
want = sorted(dist.items())
if got != want:
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    sys.exit(f"dag_levels: {len(got)} lines, expected {len(want)}; the first difference is at line {first + 1}")
print(f"dag_levels: longest paths to {len(got)} nodes match, the longest {max(d for _, d in got)}")
