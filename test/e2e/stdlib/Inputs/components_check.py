"""Data and checker of graph.components and graph.components_external, against networkx.

    components_check.py gen DIR NODES EDGES SEED   # DIR/edges.bin: EDGES random edges over
                                                   # 0..NODES-1 plus duplicates (some reversed)
                                                   # and self-loops
    components_check.py check DIR NODES LABELS [present]
        LABELS: "node label" lines in node order; the label must be the smallest node of the
        node's component in networkx.connected_components. Without `present` every node
        0..NODES-1 has a line (isolated ones label themselves); with it exactly the nodes
        that occur in an edge do.
"""
import random
import struct
import sys

import networkx


def read_edges(path):
    data = open(path, 'rb').read()
    return [struct.unpack_from('<II', data, i) for i in range(0, len(data), 8)]


def gen(dir, nodes, m, seed):
    rng = random.Random(seed)
    es = [(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(m)]
    es += [rng.choice(es) for _ in range(m // 10)]                    # duplicates
    es += [(b, a) for a, b in rng.sample(es, m // 10)]                # reversed duplicates
    es += [(v, v) for v in (rng.randrange(nodes) for _ in range(m // 50))]  # self-loops
    rng.shuffle(es)
    with open(dir + '/edges.bin', 'wb') as f:
        for a, b in es:
            f.write(struct.pack('<II', a, b))
    print('edges %d over %d nodes' % (len(es), nodes))


def check(dir, nodes, labels_path, present):
    es = read_edges(dir + '/edges.bin')
    g = networkx.Graph()
    if present:
        g.add_edges_from(es)
    else:
        g.add_nodes_from(range(nodes))
        g.add_edges_from(es)
    expected = {}
    for comp in networkx.connected_components(g):
        low = min(comp)
        for v in comp:
            expected[v] = low
    got = [tuple(map(int, line.split())) for line in open(labels_path)]
    want = sorted(expected.items())
    assert len(got) == len(want), 'got %d labels, expected %d' % (len(got), len(want))
    bad = [(g_, w) for g_, w in zip(got, want) if g_ != w]
    assert not bad, 'first mismatches (got, expected): %s' % bad[:5]
    comps = len(set(expected.values()))
    print('labels correct: %d nodes, %d components' % (len(want), comps))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4], len(sys.argv) > 5 and sys.argv[5] == 'present')
