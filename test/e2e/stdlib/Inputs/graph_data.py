"""Shared by the std.graph checkers (test/e2e/stdlib/Inputs/graph_*_check.py): deterministic
random graphs and readers of the programs' binary outputs. Plain Python, no Flow code.

Edges are pairs of u32, little-endian, 8 bytes each (`record Edge { src: u32, dst: u32 }`).
Node ids are spread over the whole u32 range (0 and 2^32 - 1 included), so no routine may
assume ids 0..n-1. The raw graph has duplicate edges, reversed copies and self-loops, and one
hub node that takes part in about 2% of all edges."""
import array
import os
import random
import struct
import sys

MAX = 2**32 - 1


def node_ids(rng, nodes):
    """`nodes` distinct ids spread over the u32 range, 0 and 2^32 - 1 among them."""
    ids = {0, MAX}
    while len(ids) < nodes:
        ids.add(rng.randrange(MAX + 1))
    ids = sorted(ids)
    rng.shuffle(ids)
    return ids


def raw_edges(seed=17, n_edges=150000, nodes=30000):
    """A multigraph in random order: random pairs, plus duplicates, reversed copies,
    self-loops and a hub."""
    rng = random.Random(seed)
    ids = node_ids(rng, nodes)
    hub = ids[1]
    out = []
    for _ in range(n_edges):
        r = rng.random()
        if r < 0.05 and out:
            out.append(rng.choice(out))                     # a duplicate
        elif r < 0.08 and out:
            s, d = rng.choice(out)
            out.append((d, s))                              # a reversed copy
        elif r < 0.10:
            v = rng.choice(ids)
            out.append((v, v))                              # a self-loop
        elif r < 0.12:
            out.append((hub, rng.choice(ids)) if r < 0.11 else (rng.choice(ids), hub))
        else:
            out.append((ids[min(int(rng.expovariate(1.0) * nodes / 4), nodes - 1)], rng.choice(ids)))
    return out


def undirected(edges):
    """The simple undirected graph of `edges`: both directions, sorted, no duplicates, no
    self-loops -- the input form of graph.mis, graph.colouring and graph.triangles."""
    return sorted({(s, d) for s, d in edges if s != d} | {(d, s) for s, d in edges if s != d})


def fans(seed=5, centres=2000, fan=120, targets=3000, edges=None):
    """Edges from `centres` nodes with small ids (below 2^21, so time-forward processing
    visits them first) to `fan` random nodes each among `targets` nodes of `edges`: their
    events and messages wait in the priority queue until the scan reaches the targets, so
    graph.mis and graph.colouring hold over 200000 queue items at once (more than a 1 MiB
    queue keeps in memory), many with the same receiver."""
    rng = random.Random(seed)
    ids = sorted({v for e in edges for v in e})
    ends = rng.sample(ids, targets)
    low = set()
    while len(low) < centres:
        low.add(rng.randrange(1 << 21))
    return [(u, rng.choice(ends)) for u in sorted(low) for _ in range(fan)]


def task_graph():
    """The input of graph.mis, graph.colouring and graph.triangles in the tests: the simple
    undirected graph of raw_edges() and fans(), both directions, sorted by (src, dst)."""
    raw = raw_edges()
    return undirected(raw + fans(edges=raw))


def cliques(seed=9, edges=None):
    """Cliques of 3 to 30 nodes of `edges` (each pair once, lower id first), for triangles."""
    rng = random.Random(seed)
    ids = sorted({v for e in edges for v in e})
    out = []
    for size, times in ((3, 20), (4, 20), (5, 20), (8, 20), (12, 2), (20, 2), (30, 2)):
        for _ in range(times):
            c = rng.sample(ids, size)
            out += [(a, b) for a in c for b in c if a < b]
    return out


def triangle_graph():
    """The input of graph.triangles in its test: the simple undirected graph of raw_edges()
    and cliques(), both directions, sorted. (task_graph()'s fans would make 9.6 million
    wedges; this one has 300000.)"""
    raw = raw_edges()
    return undirected(raw + cliques(edges=raw))


def networkx_graph(edges):
    import networkx
    g = networkx.Graph()
    g.add_edges_from(edges)
    return g


def write_edges(path, edges):
    words = array.array('I', (v for e in edges for v in e))
    if sys.byteorder != 'little':
        words.byteswap()
    with open(path, 'wb') as f:
        f.write(words.tobytes())


def read_records(path, fmt):
    data = open(path, 'rb').read()
    size = struct.calcsize(fmt)
    assert len(data) % size == 0, f"{path}: {len(data)} bytes is not a whole number of {size}-byte records"
    return list(struct.iter_unpack(fmt, data))


def read_u32(path):
    words = array.array('I', open(path, 'rb').read())
    if sys.byteorder != 'little':
        words.byteswap()
    return words.tolist()


def test_edges(what, directory, make):
    """The edges of a checker's test: for `gen`, writes make() to DIRECTORY/edges.bin and
    ends the script; else (`check`) returns the edges that file holds."""
    path = os.path.join(directory, 'edges.bin')
    if what == 'gen':
        write_edges(path, make())
        sys.exit(0)
    return read_edges(path)


def read_edges(path):
    words = read_u32(path)
    assert len(words) % 2 == 0, f"{path}: not a whole number of edges"
    return list(zip(words[0::2], words[1::2]))
