"""Data and checker of graph.bfs, against networkx.single_source_shortest_path_length.

    bfs_check.py gen DIR NODES EDGES SEED   # DIR/edges.bin: EDGES random edges over
        0..NODES-61 (a giant component and many small ones), plus duplicates (some
        reversed), self-loops, and a path of the 60 other nodes hanging off node 0
        (NODES-1, NODES-2, ...), so that BFS from 0 runs for many levels
    bfs_check.py check DIR SOURCE LEVELS    # LEVELS: "node level" lines; exactly the
        nodes reachable from SOURCE, in node order, each at its BFS distance
"""
import random
import struct
import sys

import networkx


def gen(dir, nodes, m, seed):
    rng = random.Random(seed)
    body = nodes - 60                                                 # the path's nodes are above
    es = [(rng.randrange(body), rng.randrange(body)) for _ in range(m)]
    es += [rng.choice(es) for _ in range(m // 10)]                    # duplicates
    es += [(b, a) for a, b in rng.sample(es, m // 10)]                # reversed duplicates
    es += [(v, v) for v in (rng.randrange(nodes) for _ in range(m // 50))]  # self-loops
    path = [0] + [nodes - 1 - i for i in range(60)]
    es += list(zip(path, path[1:]))
    rng.shuffle(es)
    with open(dir + '/edges.bin', 'wb') as f:
        for a, b in es:
            f.write(struct.pack('<II', a, b))
    print('edges %d over %d nodes' % (len(es), nodes))


def check(dir, source, levels_path):
    data = open(dir + '/edges.bin', 'rb').read()
    g = networkx.Graph()
    g.add_node(source)
    g.add_edges_from(struct.unpack_from('<II', data, i) for i in range(0, len(data), 8))
    want = sorted(networkx.single_source_shortest_path_length(g, source).items())
    got = [tuple(map(int, line.split())) for line in open(levels_path)]
    assert len(got) == len(want), 'got %d nodes, expected %d' % (len(got), len(want))
    bad = [(a, b) for a, b in zip(got, want) if a != b]
    assert not bad, 'first mismatches (got, expected): %s' % bad[:5]
    print('levels correct: %d nodes, %d levels' % (len(want), max(l for _, l in want) + 1))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4])
