"""graph.degrees' test data and checker: plain Python for the out-degrees of a raw edge list,
networkx for the degrees of the undirected simple graph.

    graph_degrees_check.py gen DIR                 # DIR/edges.bin: 150000 raw edges (duplicates,
                                                   # self-loops); DIR/undirected.bin: its simple
                                                   # undirected graph, both directions, sorted
    graph_degrees_check.py raw DIR FILE            # FILE: per src of edges.bin its edge count
    graph_degrees_check.py undirected DIR FILE     # FILE: networkx's degree of every node of
                                                   # the graph (self-loops and duplicates dropped)
FILE holds (node: u32, 4 bytes of padding, degree: u64) records ordered by node."""
import os
import sys
from collections import Counter

import networkx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

what, d = sys.argv[1], sys.argv[2]
raw_path = os.path.join(d, 'edges.bin')
if what == 'gen':
    raw = graph_data.raw_edges()
    graph_data.write_edges(raw_path, raw)
    graph_data.write_edges(os.path.join(d, 'undirected.bin'), graph_data.undirected(raw))
    sys.exit(0)
raw = graph_data.read_edges(raw_path)
got = graph_data.read_records(sys.argv[3], '<I4xQ')
if what == 'raw':
    expected = sorted(Counter(s for s, _ in raw).items())
else:
    g = networkx.Graph()
    g.add_edges_from((s, t) for s, t in raw if s != t)
    expected = sorted(g.degree())
assert len(got) == len(expected), f"{len(got)} nodes, expected {len(expected)}"
bad = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
assert bad is None, f"record {bad} is {got[bad]}, expected {expected[bad]}"
print(f"degrees ok ({what}): {len(got)} nodes, largest degree {max(x for _, x in got)}")
