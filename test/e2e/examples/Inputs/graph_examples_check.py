"""Checks the graph examples (components.flow, bfs.flow, spanning_forest.flow) with
networkx on the same random graph, regenerated with Flow's rand.
Usage: graph_examples_check.py components NODES EDGES labels.txt [external]
       graph_examples_check.py bfs NODES EDGES SOURCE levels.txt
       graph_examples_check.py forest NODES EDGES forest.txt"""
import os
import sys
import networkx as nx
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
from flow_rand import Rand  # noqa: E402

mode, nodes, edges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = Rand(1, stage=1)  # the script's generate
if mode == "forest":
    # graph.spanning_forest draws its random renaming (add, then mul until it is prime to
    # nodes) from the program's sequence; the edges are the generate's.
    import math
    renaming = Rand(1)
    renaming.rand(nodes)
    while math.gcd(1 + renaming.rand(nodes - 1), nodes) != 1:
        pass
    triples = [(r.at(i).rand(nodes), r.rand(nodes), r.rand(1_000_000)) for i in range(edges)]
else:
    pairs = [(r.at(i).rand(nodes), r.rand(nodes)) for i in range(edges)]

def lines(path):
    return [tuple(int(x) for x in line.split()) for line in open(path)]

if mode == "components":
    g = nx.Graph()
    external = len(sys.argv) > 5
    if not external:
        g.add_nodes_from(range(nodes))
    g.add_edges_from(pairs)
    want = sorted((v, least) for c in nx.connected_components(g) for least in [min(c)] for v in c)
    got = lines(sys.argv[4])
    assert got == want, f"labels differ: {len(got)} lines, expected {len(want)}"
    print(f"components: {nx.number_connected_components(g)} components of {g.number_of_nodes()} nodes match")
elif mode == "bfs":
    source = int(sys.argv[4])
    g = nx.Graph()
    g.add_node(source)
    g.add_edges_from(pairs)
    want = sorted(nx.single_source_shortest_path_length(g, source).items())
    got = lines(sys.argv[5])
    assert got == want, f"levels differ: {len(got)} lines, expected {len(want)}"
    print(f"bfs: {len(want)} nodes, {max(l for _, l in want) + 1} levels match")
else:
    g = nx.Graph()
    for s, d, w in triples:  # the lightest of parallel edges counts; self-loops never
        if s != d and (not g.has_edge(s, d) or g[s][d]["weight"] > w):
            g.add_edge(s, d, weight=w)
    want = sum(d["weight"] for _, _, d in nx.minimum_spanning_edges(g, data=True))
    got = lines(sys.argv[4])
    weight = sum(w for _, _, w in got)
    forest = nx.Graph()
    forest.add_edges_from((s, d) for s, d, _ in got)
    assert nx.is_forest(forest), "the result has a cycle"
    assert len(got) == g.number_of_nodes() - nx.number_connected_components(g), "not spanning"
    assert weight == want, f"weight {weight}, networkx {want}"
    print(f"forest: {len(got)} edges, weight {weight} is minimum")
