"""Checks examples/graph_generation.flow's two files against Python: the program draws the
pipelined graph's edges first and the materialized graph's next, from one random
sequence (Flow's rand, regenerated here); each file must hold that graph's distinct edges,
sorted by (src, dst). Usage: graph_generation_check.py EDGES DIR"""
import os
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
from flow_rand import Rand  # noqa: E402

edges = int(sys.argv[1])
nodes = edges // 4
for stage, name in enumerate(("graph_pipelined.bin", "graph_materialized.bin"), 1):  # its two generates
    r = Rand(1, stage)
    want = sorted({(r.at(i).rand(nodes), r.rand(nodes)) for i in range(edges)})
    data = open(os.path.join(sys.argv[2], name), "rb").read()
    got = list(struct.iter_unpack("<II", data))
    assert got == want, f"{name}: {len(got)} edges, expected {len(want)}"
    print(f"{name}: {len(got)} distinct edges of {edges}, sorted")
