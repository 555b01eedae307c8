"""graph.mis' test data and checker: networkx for independence and maximality, plain
Python for the greedy set time-forward processing must give.

    graph_mis_check.py gen DIR              # DIR/edges.bin: graph_data.task_graph(), a simple
                                            # undirected graph, both directions, sorted
    graph_mis_check.py check DIR FILE...    # each FILE: the members (u32), ascending, unique,
                                            # independent and maximal in that graph"""
import os
import sys

import networkx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

g = graph_data.networkx_graph(graph_data.test_edges(sys.argv[1], sys.argv[2], graph_data.task_graph))
# Time-forward processing takes the nodes in ascending id: the greedy set in that order.
expected, blocked = [], set()
for v in sorted(g.nodes):
    if v not in blocked:
        expected.append(v)
        blocked.update(g[v])
for path in sys.argv[3:]:
    mis = graph_data.read_u32(path)
    members = set(mis)
    assert mis == sorted(members), f"{path}: the members are not ascending and unique"
    assert members <= set(g.nodes), f"{path}: a member is no node of the graph"
    assert g.subgraph(members).number_of_edges() == 0, f"{path}: two members are neighbours: not independent"
    assert networkx.is_dominating_set(g, members), \
        f"{path}: a node has no member among itself and its neighbours: not maximal"
    assert mis == expected, f"{path}: not the greedy set by ascending id: {len(mis)} members, expected {len(expected)}"
    print(f"independent and maximal: {len(mis)} of {g.number_of_nodes()} nodes")
