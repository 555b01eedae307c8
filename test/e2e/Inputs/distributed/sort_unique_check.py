#!/usr/bin/env python3
"""The independent reference of sort_unique.flow: the same edges in Python, sorted and
deduplicated, compared with the file and the printed lines."""
import struct
import sys

path, printed, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
edges = [((i * 2654435761) % 100003, (i * 40503) % 7919) for i in range(n)]
want = b"".join(struct.pack("<QQ", s, d) for s, d in sorted(set(edges)))
got = open(path, "rb").read()
if got != want:
    sys.exit(f"{path}: {len(got)} bytes, want {len(want)} bytes of {len(want) // 16} distinct edges sorted")
lines = open(printed).read().splitlines()
expect = [f"edges {n}, with src below 1000: {sum(1 for s, _ in edges if s < 1000)}",
          f"sum of dst {sum(d for _, d in edges) % 2**64}"]
if lines != expect:
    sys.exit(f"printed {lines}, want {expect}")
print(f"{len(want) // 16} distinct edges, as Python computes them")
