"""graph.triangles' test data and checker, with networkx.

    graph_triangles_check.py gen DIR              # DIR/edges.bin: graph_data.triangle_graph()
                                                  # (a simple undirected graph, both directions),
                                                  # shuffled: the routine takes any order
    graph_triangles_check.py check DIR OUT...     # each OUT: a program's output, whose line
                                                  # "triangles: N" must give networkx's count"""
import os
import random
import re
import sys

import networkx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

def shuffled_triangle_graph():
    edges = graph_data.triangle_graph()
    random.Random(1).shuffle(edges)
    return edges


g = graph_data.networkx_graph(graph_data.test_edges(sys.argv[1], sys.argv[2], shuffled_triangle_graph))
expected = sum(networkx.triangles(g).values()) // 3
for path in sys.argv[3:]:
    found = re.findall(r'^triangles: (\d+)$', open(path).read(), re.M)
    assert len(found) == 1, f"{path}: no line 'triangles: N'"
    assert int(found[0]) == expected, f"{path}: {found[0]} triangles, networkx counts {expected}"
    print(f"triangles as networkx: {expected} in {g.number_of_edges()} edges")
