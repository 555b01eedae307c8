"""Writes edges.bin (5000 random 8-byte edges) and expected.bin (them sorted)."""
import random
import struct

random.seed(14)
edges = [(random.randrange(300), random.randrange(300)) for _ in range(5000)]
open("edges.bin", "wb").write(b"".join(struct.pack("<II", a, b) for a, b in edges))
open("expected.bin", "wb").write(b"".join(struct.pack("<II", a, b) for a, b in sorted(edges)))
