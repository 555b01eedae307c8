"""list_ranking.py DIR: 5000 elements cut into 21 linked lists (succ.bin: node, successor
or 2^32-1 at the end, 1 or 0) and each element's distance to the end of its list."""
import os
import random
import struct
import sys

os.chdir(sys.argv[1])
random.seed(5)
n = 5000
perm = list(range(n))
random.shuffle(perm)
cuts = sorted(random.sample(range(1, n), 20))
succ, rank = [0] * n, [0] * n
for piece in (perm[a:b] for a, b in zip([0] + cuts, cuts + [n])):
    for i, v in enumerate(piece):
        succ[v] = piece[i + 1] if i + 1 < len(piece) else 0xFFFFFFFF
        rank[v] = len(piece) - 1 - i
with open('succ.bin', 'wb') as f:
    for v in range(n):
        f.write(struct.pack('<IIQ', v, succ[v], 0 if succ[v] == 0xFFFFFFFF else 1))
with open('expected_ranks.txt', 'w') as f:
    f.write(''.join('%d\n' % rank[v] for v in range(n)))
