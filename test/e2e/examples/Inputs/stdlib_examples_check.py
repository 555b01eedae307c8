"""Checks examples/degrees.flow, top_k.flow and suffix_array.flow with Python.
Usage: stdlib_examples_check.py degrees NODES EDGES degree_counts.txt
       stdlib_examples_check.py top_k K DIR (numbers.bin, largest.txt, most_frequent.txt)
       stdlib_examples_check.py suffix_array text.txt sa.bin"""
import collections
import os
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
from flow_rand import Rand  # noqa: E402

mode = sys.argv[1]
if mode == "degrees":
    nodes, edges = int(sys.argv[2]), int(sys.argv[3])
    r = Rand(1, stage=1)
    neighbours = collections.defaultdict(set)
    for i in range(edges):  # random.edges: per index a source, then a target other than it
        s = r.at(i).rand(nodes)
        t = (s + 1 + r.rand(nodes - 1)) % nodes
        neighbours[s].add(t)
        neighbours[t].add(s)
    want = collections.Counter(len(n) for n in neighbours.values())
    got = {int(a): int(b) for a, b in (line.split() for line in open(sys.argv[4]))}
    assert got == dict(want), f"degree counts differ: {sorted(got.items())[:5]} vs {sorted(want.items())[:5]}"
    print(f"degrees: {len(want)} distinct degrees over {sum(want.values())} nodes match")
elif mode == "top_k":
    k, d = int(sys.argv[2]), sys.argv[3]
    data = open(os.path.join(d, "numbers.bin"), "rb").read()
    values = [v for (v,) in struct.iter_unpack("<Q", data)]
    largest = [int(x) for x in open(os.path.join(d, "largest.txt"))]
    assert largest == sorted(values, reverse=True)[:k], "largest differ"
    counts = collections.Counter(values)
    got = [tuple(int(x) for x in line.split()) for line in open(os.path.join(d, "most_frequent.txt"))]
    # the k last under (count asc, value desc), the last first: highest count, then smallest value
    want = sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))[:k]
    assert got == want, f"most frequent differ: {got[:3]} vs {want[:3]}"
    print(f"top_k: the {k} largest of {len(values)} and the {k} most frequent match")
else:
    text = open(sys.argv[2], "rb").read()
    sa = [v for (v,) in struct.iter_unpack("<Q", open(sys.argv[3], "rb").read())]
    assert sa == sorted(range(len(text)), key=lambda i: text[i:]), "suffix array differs"
    print(f"suffix array of {len(text)} bytes matches the naive one")
