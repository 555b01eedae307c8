"""text_check.py gen DIR N | sa DIR SA: data and the naive reference for the std.text drafts.

gen: text.bin, N bytes (N >= 8000): random letters (mostly a and b), "abracadabra" 300
times, a 2000-byte stretch copied twice (a long repeat), a run of 500 'a's, random
letters again; also wrong.bin, a copy of the correct suffix array with two entries
swapped, and dup.bin, with one entry duplicated (for the checker's negative tests).
sa: SA (u64 positions) must equal sorted(range(n), key=lambda i: text[i:]) - computed
bucket by bucket on 64-byte prefixes so that only one bucket's full suffixes are held at
a time."""
import itertools
import os
import random
import struct
import sys


def naive_sa(text):
    n = len(text)
    order = sorted(range(n), key=lambda i: text[i:i + 64])
    out = []
    for _, group in itertools.groupby(order, key=lambda i: text[i:i + 64]):
        group = list(group)
        out.extend(group if len(group) == 1 else sorted(group, key=lambda i: text[i:]))
    return out


def gen(d, n):
    random.seed(23)

    def letters(k):
        return bytes(random.choice(b'ab') if random.random() < 0.7 else random.choice(b'abcdxyz')
                     for _ in range(k))
    head = letters(2000)
    stretch = letters(2000)
    text = head + b'abracadabra' * 300 + stretch + letters(300) + stretch + b'a' * 500
    text += letters(n - len(text))
    assert len(text) == n
    open(os.path.join(d, 'text.bin'), 'wb').write(text)
    sa = naive_sa(text)
    open(os.path.join(d, 'expected_sa.bin'), 'wb').write(struct.pack('<%dQ' % n, *sa))
    wrong = list(sa)
    wrong[100], wrong[101] = wrong[101], wrong[100]
    open(os.path.join(d, 'wrong.bin'), 'wb').write(struct.pack('<%dQ' % n, *wrong))
    dup = list(sa)
    dup[5000] = dup[5001]
    open(os.path.join(d, 'dup.bin'), 'wb').write(struct.pack('<%dQ' % n, *dup))


def check_sa(d, path):
    text = open(os.path.join(d, 'text.bin'), 'rb').read()
    got = [v for (v,) in struct.iter_unpack('<Q', open(path, 'rb').read())]
    want = naive_sa(text)
    assert len(got) == len(want), (len(got), len(want))
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, '(rank, got, expected) %s' % bad[:5]
    print('suffix array ok: %d suffixes' % len(got))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2], int(sys.argv[3]))
    else:
        check_sa(sys.argv[2], sys.argv[3])
