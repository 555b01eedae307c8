"""components.py DIR: a random graph (edges.bin, 1500 edges over 2000 nodes) and the
expected component labels (the smallest node of each component), from a union-find in
plain Python."""
import os
import random
import struct
import sys

os.chdir(sys.argv[1])
random.seed(3)
n = 2000
edges = [(random.randrange(n), random.randrange(n)) for _ in range(1500)]
with open('edges.bin', 'wb') as f:
    for a, b in edges:
        f.write(struct.pack('<II', a, b))
parent = list(range(n))


def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


for a, b in edges:
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)
smallest = {}
for v in range(n):
    smallest.setdefault(find(v), v)
with open('expected_labels.txt', 'w') as f:
    for v in range(n):
        f.write('%d %d\n' % (v, smallest[find(v)]))
