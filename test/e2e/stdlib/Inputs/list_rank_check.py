"""list_rank_check.py gen DIR | check DIR RANKS: data and reference for list_rank.flow.

gen: 100000 elements (u32 node ids 0..n-1, in random order in the file) cut into 40
linked lists of random lengths plus 25 one-element lists; succ.bin holds Link records
(node u32, succ u32, 2^32-1 at a list's end).
check: RANKS (Rank records: node u32, pad, rank u64) must hold every node once, in node
order, with its distance to the end of its list, computed here by walking each list
from its head."""
import os
import random
import struct
import sys

END = 0xFFFFFFFF


def gen(d):
    random.seed(11)
    n = 100000
    perm = list(range(n))
    random.shuffle(perm)
    cuts = sorted(random.sample(range(1, n - 25), 39)) + list(range(n - 25, n))
    links = []
    for a, b in zip([0] + cuts, cuts + [n]):
        piece = perm[a:b]
        for i, v in enumerate(piece):
            links.append((v, piece[i + 1] if i + 1 < len(piece) else END))
    random.shuffle(links)
    with open(os.path.join(d, 'succ.bin'), 'wb') as f:
        f.write(b''.join(struct.pack('<II', v, s) for v, s in links))


def check(d, path):
    data = open(os.path.join(d, 'succ.bin'), 'rb').read()
    succ = dict(struct.iter_unpack('<II', data))
    has_pred = set(s for s in succ.values() if s != END)
    rank = {}
    for head in succ:
        if head in has_pred:
            continue
        walk = [head]
        while succ[walk[-1]] != END:
            walk.append(succ[walk[-1]])
        for i, v in enumerate(walk):
            rank[v] = len(walk) - 1 - i
    assert len(rank) == len(succ), 'the input is not a set of lists'
    got = [(v, r) for v, _, r in struct.iter_unpack('<IIQ', open(path, 'rb').read())]
    expected = sorted(rank.items())
    assert len(got) == len(expected), (len(got), len(expected))
    bad = [(g, e) for g, e in zip(got, expected) if g != e]
    assert not bad, bad[:5]
    print('list_rank ok: %d elements, longest list %d' % (len(got), max(rank.values()) + 1))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
