"""Data and checker of graph.spanning_forest, against networkx.minimum_spanning_tree.

    spanning_check.py gen DIR NODES EDGES SEED   # DIR/edges.bin: EDGES random WEdge records
        over 0..NODES-1 with distinct weights, plus parallel edges (the same or reversed
        endpoints, other weights) and self-loops
    spanning_check.py check DIR NODES FOREST     # FOREST: "src dst w" lines
        Each forest edge must be an input edge (as a multiset), the forest must have the
        edge count and total weight of networkx's minimum spanning forest, and with
        distinct weights it must be that very forest.
"""
import collections
import random
import struct
import sys

import networkx


def gen(dir, nodes, m, seed):
    rng = random.Random(seed)
    es = [(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(m)]
    es += [rng.choice(es) for _ in range(m // 10)]                 # parallel edges
    es += [(b, a) for a, b in rng.sample(es, m // 10)]             # reversed parallel edges
    es += [(v, v) for v in (rng.randrange(nodes) for _ in range(m // 50))]  # self-loops
    weights = rng.sample(range(1, 20 * len(es)), len(es))          # distinct
    rng.shuffle(es)
    with open(dir + '/edges.bin', 'wb') as f:
        for (a, b), w in zip(es, weights):
            f.write(struct.pack('<III', a, b, w))
    print('edges %d over %d nodes' % (len(es), nodes))


def check(dir, nodes, forest_path):
    data = open(dir + '/edges.bin', 'rb').read()
    es = [struct.unpack_from('<III', data, i) for i in range(0, len(data), 12)]
    g = networkx.Graph()
    g.add_nodes_from(range(nodes))
    for a, b, w in es:              # the lightest of parallel edges; self-loops are kept
        if a == b or not g.has_edge(a, b) or g[a][b]['weight'] > w:
            g.add_edge(a, b, weight=w)
    t = networkx.minimum_spanning_tree(g)
    want = sorted((min(a, b), max(a, b), d['weight']) for a, b, d in t.edges(data=True))
    got = [tuple(map(int, line.split())) for line in open(forest_path)]
    avail = collections.Counter(es)
    for e in got:
        assert avail[e] > 0, 'not an input edge (or used twice): %s' % (e,)
        avail[e] -= 1
    assert len(got) == len(want), 'forest has %d edges, networkx %d' % (len(got), len(want))
    total = sum(w for _, _, w in got)
    assert total == sum(w for _, _, w in want), \
        'weight %d, networkx %d' % (total, sum(w for _, _, w in want))
    assert sorted((min(a, b), max(a, b), w) for a, b, w in got) == want, 'another forest'
    print('minimum spanning forest: %d edges, weight %d' % (len(got), total))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4])
