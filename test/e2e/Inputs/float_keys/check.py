"""Checks the outputs of float_keys_nan.flow in DIR against Python's own answers from
DIR/values.txt and DIR/right.txt, under the total order of keys: every NaN (either sign)
above +inf and equal to every other NaN, -0.0 equal to +0.0. Removes the outputs it
checked, so that the next run writes them anew.

Usage: check.py DIR"""
import math
import os
import sys
from collections import Counter

out = sys.argv[1]
failures = []


def key(x):
    """A Python sort key for the total order: NaNs last and all alike; -0.0 == 0.0 already."""
    return (1, 0.0) if math.isnan(x) else (0, x)


def same(a, b):
    return key(a) == key(b)


def read_rows(name):
    with open(os.path.join(out, name)) as f:
        return [line.split() for line in f]


def floats(name):
    return [float(r[0]) for r in read_rows(name)]


values = [(float(r[0]), int(r[1])) for r in read_rows('values.txt')]
right = [(float(r[0]), int(r[1])) for r in read_rows('right.txt')]
xs = [x for x, _ in values]


def expect_sequence(name, got, want):
    if len(got) != len(want):
        failures.append(f'{name}: {len(got)} values, expected {len(want)}')
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if not same(g, w):
            failures.append(f'{name}: value {i} is {g!r}, expected {w!r}')
            return


asc = sorted(xs, key=key)
desc = sorted(xs, key=key, reverse=True)
expect_sequence('asc.txt', floats('asc.txt'), asc)
expect_sequence('desc.txt', floats('desc.txt'), desc)
expect_sequence('pq_desc.txt', floats('pq_desc.txt'), desc)
expect_sequence('merged.txt', floats('merged.txt'), sorted(xs + [k for k, _ in right], key=key))

# (x desc, i asc): the line numbers are distinct, so the whole output is determined.
records = [(float(r[0]), int(r[1])) for r in read_rows('records_desc.txt')]
want = sorted(values, key=lambda v: (tuple(-c for c in key(v[0])), v[1]))
if [i for _, i in records] != [i for _, i in want]:
    failures.append('records_desc.txt: the line numbers are not in the order (x desc, i asc)')
expect_sequence('records_desc.txt', [x for x, _ in records], [x for x, _ in want])

distinct = sorted(set(key(x) for x in xs))
expect_sequence('unique.txt', floats('unique.txt'), [math.nan if k[0] else k[1] for k in distinct])

records = [(float(r[0]), int(r[1])) for r in read_rows('unique_records.txt')]
expect_sequence('unique_records.txt', [x for x, _ in records], [math.nan if k[0] else k[1] for k in distinct])
if any(n != 1 for _, n in records):
    failures.append('unique_records.txt: a record that is not (x, 1)')

counts = Counter(key(x) for x in xs)
groups = [(float(r[0]), int(r[1])) for r in read_rows('groups.txt')]
want_groups = sorted(counts.items())
if [(key(x), n) for x, n in groups] != want_groups:
    failures.append(f'groups.txt: {len(groups)} groups, expected {len(want_groups)}; first difference at ' +
                    str(next((i for i, (g, w) in enumerate(zip([(key(x), n) for x, n in groups], want_groups))
                              if g != w), min(len(groups), len(want_groups)))))

pairs = [(float(r[0]), int(r[1]), int(r[2])) for r in read_rows('join.txt')]
right_by_key = {}
for k, b in right:
    right_by_key.setdefault(key(k), []).append(b)
want_pairs = Counter((a, b) for x, a in values for b in right_by_key.get(key(x), []))
if Counter((a, b) for _, a, b in pairs) != want_pairs:
    failures.append(f'join.txt: {len(pairs)} pairs, expected {sum(want_pairs.values())} (or other pairs)')
if any(key(pairs[i + 1][0]) < key(pairs[i][0]) for i in range(len(pairs) - 1)):
    failures.append('join.txt: not in key order')
if any(not same(k, xs[a]) for k, a, _ in pairs):
    failures.append('join.txt: a pair whose key is not its left value')

for name in ['asc.txt', 'desc.txt', 'records_desc.txt', 'unique.txt', 'unique_records.txt', 'groups.txt',
             'join.txt', 'merged.txt', 'pq_desc.txt']:
    os.remove(os.path.join(out, name))
if failures:
    sys.exit('\n'.join(failures))
print(f'{len(xs)} values: sorts, orders, unique, reduce, join, merge and queues as Python has them')
