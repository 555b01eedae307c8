"""graph.dedup's test data and checker (plain Python reference).

    graph_dedup_check.py gen DIR           # writes DIR/edges.bin (150000 raw edges)
    graph_dedup_check.py check DIR FILE    # FILE must be DIR/edges.bin's edges, sorted by
                                           # (src, dst), once each, without self-loops"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

raw = graph_data.test_edges(sys.argv[1], sys.argv[2], graph_data.raw_edges)
got = graph_data.read_edges(sys.argv[3])
expected = sorted({(s, t) for s, t in raw if s != t})
assert len(expected) < len(raw) - 1000, "the data should have many duplicates and self-loops"
assert got == expected, f"{len(got)} edges, expected {len(expected)}; first difference at " \
    f"{next(i for i, (a, b) in enumerate(zip(got + [None] * len(expected), expected)) if a != b)}"
print(f"dedup ok: {len(raw)} edges -> {len(got)}")
