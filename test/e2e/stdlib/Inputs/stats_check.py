"""stats_check.py gen DIR | top_k DIR K SMALLEST LARGEST | frequencies DIR OUT |
histogram DIR LO HI BUCKETS OUT...: data and plain-Python references for the std.stats drafts.

gen: values.bin, 300000 u64 values with many duplicates: 250000 from [0, 50000), 40000
from [0, 300) (heavy repeats), 10000 spread over all of u64 (among them 0 and 2^64-1
a few times each), shuffled."""
import os
import random
import struct
import sys


def values(d):
    data = open(os.path.join(d, 'values.bin'), 'rb').read()
    return [v for (v,) in struct.iter_unpack('<Q', data)]


def gen(d):
    random.seed(17)
    v = [random.randrange(50000) for _ in range(250000)]
    v += [random.randrange(300) for _ in range(40000)]
    v += [random.randrange(1 << 64) for _ in range(9990)]
    v += [0] * 5 + [(1 << 64) - 1] * 5
    random.shuffle(v)
    with open(os.path.join(d, 'values.bin'), 'wb') as f:
        f.write(struct.pack('<%dQ' % len(v), *v))


def numbers(path):
    return [int(x) for x in open(path)]


def expect_equal(name, got, want):
    assert len(got) == len(want), '%s: %d lines, expected %d' % (name, len(got), len(want))
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, '%s: (line, got, expected) %s' % (name, bad[:5])


def top_k(d, k, smallest, largest):
    v = sorted(values(d))
    expect_equal('smallest', numbers(smallest), v[:k])
    expect_equal('largest', numbers(largest), v[::-1][:k])
    print('top_k ok: k %d of %d values' % (k, len(v)))


def frequencies(d, path):
    counts = {}
    for v in values(d):
        counts[v] = counts.get(v, 0) + 1
    got = [tuple(int(x) for x in line.split()) for line in open(path)]
    expect_equal('frequencies', got, sorted(counts.items()))
    print('frequencies ok: %d distinct of %d values' % (len(counts), sum(counts.values())))


def histogram(d, lo, hi, buckets, paths):
    counts = [0] * buckets
    for v in values(d):
        if lo <= v < hi:
            counts[(v - lo) * buckets // (hi - lo)] += 1
    want = [(i, lo + -(-i * (hi - lo) // buckets), c) for i, c in enumerate(counts)]
    for path in paths:
        got = [tuple(int(x) for x in line.split()) for line in open(path)]
        expect_equal(path, got, want)
    print('histogram ok: %d buckets, %d values counted, %d empty buckets'
          % (buckets, sum(counts), counts.count(0)))


if __name__ == '__main__':
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == 'gen':
        gen(d)
    elif cmd == 'top_k':
        top_k(d, int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif cmd == 'frequencies':
        frequencies(d, sys.argv[3])
    elif cmd == 'histogram':
        histogram(d, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:])
    else:
        sys.exit('unknown command ' + cmd)
