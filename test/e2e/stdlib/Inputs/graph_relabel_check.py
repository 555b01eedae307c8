"""graph.relabel's test data and checker (plain Python reference).

    graph_relabel_check.py gen DIR              # writes DIR/edges.bin (150000 raw edges, ids
                                                # spread over the u32 range, 0 and 2^32-1 too)
    graph_relabel_check.py check DIR FILE...    # each FILE: every edge of DIR/edges.bin with
                                                # each id replaced by its rank among all ids,
                                                # ordered by (dst, src)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_data

raw = graph_data.test_edges(sys.argv[1], sys.argv[2], graph_data.raw_edges)
rank = {v: i for i, v in enumerate(sorted({v for e in raw for v in e}))}
expected = sorted(((rank[s], rank[t]) for s, t in raw), key=lambda e: (e[1], e[0]))
for path in sys.argv[3:]:
    got = graph_data.read_edges(path)
    assert len(got) == len(expected), f"{path}: {len(got)} edges, expected {len(expected)}"
    bad = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
    assert bad is None, f"{path}: edge {bad} is {got[bad]}, expected {expected[bad]}"
    print(f"relabel ok: {len(got)} edges over {len(rank)} nodes named 0..{len(rank) - 1}")
