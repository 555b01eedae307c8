"""text_check.py gen DIR N | sa DIR SA: data and the naive reference for the std.text drafts.

gen: text.bin, N bytes (N >= 8000): random letters (mostly a and b), "abracadabra" 300
times, a 2000-byte stretch copied twice (a long repeat), a run of 500 'a's, random
letters again; also wrong.bin, a copy of the correct suffix array with two entries
swapped, and dup.bin, with one entry duplicated (for the checker's negative tests).
small DIR PROG: runs PROG (a suffix array draft taking --input and --output) on 58 small
texts (empty, one byte, runs of one letter, periodic, random over 2 and 3 letters, the
bytes 0 and 255, lengths around multiples of 3 and 3^k) and compares with the naive order.
sa: SA (u64 positions) must equal sorted(range(n), key=lambda i: text[i:]) - computed
bucket by bucket on 64-byte prefixes so that only one bucket's full suffixes are held at
a time."""
import itertools
import os
import random
import struct
import subprocess
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


def small(d, prog):
    rnd = random.Random(3)
    cases = [b'', b'a', b'aa', b'ab', b'ba', b'aaa', b'banana', b'mississippi', b'\x00\x00\x00',
             b'\xff\x00\xff\x00', b'abracadabra' * 3]
    for n in list(range(1, 20)) + [26, 27, 28, 80, 81, 82, 243, 244]:
        cases.append(bytes(rnd.choice(b'ab') for _ in range(n)))
    for n in [5, 9, 10, 11, 30, 31, 32, 100, 242, 500]:
        cases.append(bytes(rnd.choice(b'abc') for _ in range(n)))
        cases.append(b'a' * n if n % 2 else b'ab' * (n // 2))
    text_path, out_path = os.path.join(d, 'small.bin'), os.path.join(d, 'small_sa.bin')
    for text in cases:
        open(text_path, 'wb').write(text)
        subprocess.run([prog, '--input=' + text_path, '--output=' + out_path], check=True,
                       stdout=subprocess.DEVNULL)
        got = [v for (v,) in struct.iter_unpack('<Q', open(out_path, 'rb').read())]
        assert got == naive_sa(text), 'text %r: got %s' % (text[:50], got[:20])
    print('small texts ok: %d' % len(cases))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == 'small':
        small(sys.argv[2], sys.argv[3])
    else:
        check_sa(sys.argv[2], sys.argv[3])
