"""Shared by the std.graph checkers (test/e2e/stdlib/Inputs/graph_*_check.py): deterministic
random graphs and readers of the programs' binary outputs. Plain Python, no Flow code.

Edges are pairs of u32, little-endian, 8 bytes each (`record Edge { src: u32, dst: u32 }`).
Node ids are spread over the whole u32 range (0 and 2^32 - 1 included), so no routine may
assume ids 0..n-1. The raw graph has duplicate edges, reversed copies and self-loops, and one
hub node that takes part in about 2% of all edges."""
import random
import struct

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


def write_edges(path, edges):
    with open(path, 'wb') as f:
        f.write(b''.join(struct.pack('<II', s, d) for s, d in edges))


def read_records(path, fmt):
    data = open(path, 'rb').read()
    size = struct.calcsize(fmt)
    assert len(data) % size == 0, f"{path}: {len(data)} bytes is not a whole number of {size}-byte records"
    return [struct.unpack_from(fmt, data, i) for i in range(0, len(data), size)]


def read_edges(path):
    return read_records(path, '<II')


def read_u32(path):
    return [x for (x,) in read_records(path, '<I')]
