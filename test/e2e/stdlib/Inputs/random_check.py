"""random_check.py uniform|edges|permutation FILE SEED ARGS...: checks the std.random drafts.

Every check is a property of the output (ranges, no self-loops, a permutation) plus a
loose uniformity test, and an exact comparison with test/e2e/Inputs/flow_rand.py, the
Python reference of the programs' random numbers (counter-based: each stage's element
draws by its position), drawing where the routine documents.
  uniform FILE SEED COUNT N
  edges FILE SEED COUNT NODES
  permutation FILE SEED N"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'Inputs'))
from flow_rand import Rand  # noqa: E402


def read(path, fmt):
    data = open(path, 'rb').read()
    return list(struct.iter_unpack(fmt, data))


def roughly_uniform(name, counts, expected):
    # Every cell within 6 standard deviations of its expectation (binomial, p small).
    bad = [(i, c) for i, c in enumerate(counts) if abs(c - expected) > 6 * expected ** 0.5 + 1]
    assert not bad, '%s: cells far from %.1f: %s' % (name, expected, bad[:5])


def uniform(path, seed, count, n):
    got = [v for (v,) in read(path, '<Q')]
    assert len(got) == count, (len(got), count)
    assert all(v < n for v in got), 'a value out of [0, %d)' % n
    counts = [0] * n
    for v in got:
        counts[v] += 1
    roughly_uniform('uniform', counts, count / n)
    r = Rand(seed, stage=1)  # uniform's generate
    assert got == [r.at(i).rand(n) for i in range(count)], 'not the generator\'s values'
    print('uniform ok: %d values in [0, %d)' % (count, n))


def edges(path, seed, count, nodes):
    got = read(path, '<II')
    assert len(got) == count, (len(got), count)
    assert all(s < nodes and d < nodes for s, d in got), 'a node out of range'
    loops = [e for e in got if e[0] == e[1]]
    assert not loops, 'self-loops: %s' % loops[:5]
    src = [0] * nodes
    diff = [0] * (nodes - 1)
    for s, d in got:
        src[s] += 1
        diff[(d - s - 1) % nodes] += 1
    roughly_uniform('sources', src, count / nodes)
    roughly_uniform('targets - sources', diff, count / (nodes - 1))
    r = Rand(seed, stage=1)  # edges' generate: the source, then the target
    want = []
    for i in range(count):
        s = r.at(i).rand(nodes)
        want.append((s, (s + 1 + r.rand(nodes - 1)) % nodes))
    assert got == want, 'not the generator\'s edges'
    print('edges ok: %d edges over %d nodes, no self-loops' % (count, nodes))


def permutation(path, seed, n):
    got = [v for (v,) in read(path, '<Q')]
    assert len(got) == n, (len(got), n)
    assert sorted(got) == list(range(n)), 'not a permutation of 0..%d' % (n - 1)
    fixed = sum(1 for i, v in enumerate(got) if i == v)
    assert fixed < 20, '%d fixed points (about 1 expected)' % fixed
    # The position of value v over 16 slices of the output: uniform.
    cells = [0] * 256
    for pos, v in enumerate(got):
        cells[(v * 16 // n) * 16 + pos * 16 // n] += 1
    roughly_uniform('value slice x position slice', cells, n / 256)
    r = Rand(seed, stage=1)  # permutation's generate
    keys = [r.at(i).rand() for i in range(n)]
    assert got == sorted(range(n), key=lambda i: (keys[i], i)), 'not the generator\'s order'
    print('permutation ok: %d values, %d fixed points' % (n, fixed))


if __name__ == '__main__':
    cmd, path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    args = [int(x) for x in sys.argv[4:]]
    {'uniform': uniform, 'edges': edges, 'permutation': permutation}[cmd](path, seed, *args)
