"""Inputs and expected outputs of the grouping/joining e2e tests, computed in plain
Python (an independent reference: no Flow code involved).

    data.py CASE DIR    # writes CASE's input files and expected_*.txt into DIR
"""
import random
import struct
import sys
from collections import Counter, defaultdict


def write_bin(path, fmt, rows):
    with open(path, 'wb') as f:
        for r in rows:
            f.write(struct.pack(fmt, *r))


def write_text(path, rows):
    with open(path, 'w') as f:
        for r in rows:
            f.write(' '.join(str(x) for x in r) + '\n')


def keyfreq(rng):
    # Skewed: three heavy keys and a long tail.
    keys = [rng.choice([1, 2, 3]) if rng.random() < 0.3 else rng.randrange(50000) for _ in range(500000)]
    write_bin('keys.bin', '<Q', [(k,) for k in keys])
    top = sorted(Counter(keys).items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    write_text('expected_top.txt', top)


def edges(rng, n_edges, nodes):
    return [(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(n_edges)]


def degrees(rng):
    # Node 5 is a hub: it takes part in a fifth of all edges.
    es = [(5, d) if rng.random() < 0.2 else (s, d) for s, d in edges(rng, 200000, 20000)]
    write_bin('edges.bin', '<II', es)
    deg = Counter()
    for s, d in es:
        deg[s] += 1
        deg[d] += 1
    write_text('expected_degrees.txt', sorted(deg.items()))
    write_text('expected_histogram.txt', sorted(Counter(deg.values()).items()))


def nations(rng):
    # Customer 7 appears 200000 times (1.6 MB: more than the whole 1 MiB budget of the
    # tight run) and orders of it 5 times; some orders have no customer at all.
    customers = [(c, rng.randrange(25)) for c in range(20000)] + [(7, rng.randrange(25)) for _ in range(200000)]
    rng.shuffle(customers)
    orders = [(rng.randrange(21000), rng.randrange(1000)) for _ in range(300000)]
    orders = [o for o in orders if o[0] != 7] + [(7, 10 + i) for i in range(5)]
    rng.shuffle(orders)
    write_bin('customers.bin', '<IH2x', customers)
    write_bin('orders.bin', '<I4xQ', orders)
    by_id = defaultdict(list)
    for c, nation in customers:
        by_id[c].append(nation)
    total, count = defaultdict(int), defaultdict(int)
    for cust, amount in orders:
        for nation in by_id.get(cust, []):
            total[nation] += amount
            count[nation] += 1
    write_text('expected_nations.txt', [(n, total[n], count[n]) for n in sorted(total)])


def lonely(rng):
    es = edges(rng, 30000, 20000)
    write_bin('edges.bin', '<II', es)
    sources = {s for s, _ in es}
    write_text('expected_lonely.txt', [(v,) for v in range(20000) if v not in sources])


def pagerank(rng):
    nodes = 2000
    es = edges(rng, 10000, nodes)
    write_bin('edges.bin', '<II', es)
    out = Counter(s for s, _ in es)
    rank = [1.0 / nodes] * nodes
    for _ in range(10):
        sums = [0.0] * nodes
        for s, d in es:
            sums[d] += rank[s] / out[s]
        rank = [0.15 / nodes + 0.85 * sums[v] for v in range(nodes)]
    write_text('expected_ranks.txt', [(v, repr(r)) for v, r in enumerate(rank)])


if __name__ == '__main__':
    case = sys.argv[1]
    import os
    os.chdir(sys.argv[2])
    globals()[case](random.Random(13))
