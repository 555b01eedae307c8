"""graph.symmetric's test data and checker (plain Python reference).

    graph_symmetric_check.py gen DIR           # writes DIR/edges.bin (150000 raw edges)
    graph_symmetric_check.py check DIR FILE    # FILE must be the edges of DIR/edges.bin,
                                               # then all of them reversed, in input order"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

raw = graph_data.test_edges(sys.argv[1], sys.argv[2], graph_data.raw_edges)
got = graph_data.read_edges(sys.argv[3])
expected = raw + [(t, s) for s, t in raw]
assert len(got) == len(expected), f"{len(got)} edges, expected {len(expected)}"
bad = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
assert bad is None, f"edge {bad} is {got[bad]}, expected {expected[bad]}"
print(f"symmetric ok: {len(raw)} edges -> {len(got)}")
