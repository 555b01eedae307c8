"""graph.colouring's test data and checker, with networkx: the colouring must be proper,
use at most max degree + 1 colours (every node's colour at most its degree), cover every
node of the graph once, and equal networkx's greedy colouring in ascending id order.

    graph_colouring_check.py gen DIR              # DIR/edges.bin: graph_data.task_graph()
    graph_colouring_check.py check DIR FILE...    # each FILE: (node: u32, colour: u32) by node"""
import os
import sys

import networkx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

g = graph_data.networkx_graph(graph_data.test_edges(sys.argv[1], sys.argv[2], graph_data.task_graph))
max_degree = max(k for _, k in g.degree())
greedy = networkx.coloring.greedy_color(g, strategy=lambda graph, colours: sorted(graph))
for path in sys.argv[3:]:
    got = graph_data.read_records(path, '<II')
    nodes = [v for v, _ in got]
    assert nodes == sorted(set(nodes)), f"{path}: the nodes are not ascending and unique"
    assert set(nodes) == set(g.nodes), f"{path}: {len(nodes)} nodes coloured, the graph has {g.number_of_nodes()}"
    colour = dict(got)
    bad = next(((u, v) for u, v in g.edges if colour[u] == colour[v]), None)
    assert bad is None, f"{path}: edge {bad} joins two nodes of colour {colour[bad[0]]}: not proper"
    used = len(set(colour.values()))
    assert max(colour.values()) + 1 == used, f"{path}: the colours are not 0..{used - 1}"
    assert used <= max_degree + 1, f"{path}: {used} colours, more than max degree + 1 = {max_degree + 1}"
    assert all(colour[v] <= g.degree(v) for v in g.nodes), f"{path}: a node's colour exceeds its degree"
    assert colour == greedy, f"{path}: differs from networkx's greedy colouring by ascending id"
    print(f"proper colouring: {used} colours for {len(nodes)} nodes, max degree {max_degree}")
