"""rand_stages.py N DIR STDOUT: recomputes rand_stages.flow's files and printed lines with
the Python reference of the programs' random numbers (Inputs/flow_rand.py) and compares."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from flow_rand import Rand  # noqa: E402

n, folder, stdout = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def values(name, fmt):
    return list(struct.iter_unpack(fmt, open(os.path.join(folder, name), "rb").read()))


stage1 = Rand(1, stage=1)
want = []
for i in range(n):
    stage1.at(i)
    want.append((i, stage1.rand(), stage1.rand(1000)))
assert values("gen.bin", "<QQQ") == want, "gen.bin: not the generate's draws"

generate, mapped, kept = Rand(1, stage=2), Rand(1, stage=3), Rand(1, stage=4)
want = []
for i in range(n):  # the map and the filter see every element: its number is i
    x = generate.at(i).rand(1_000_000) + mapped.at(i).rand(10)
    if kept.at(i).rand(4) != 0:
        want.append((x,))
assert values("chain.bin", "<Q") == want, "chain.bin: not the stages' draws"

keys = Rand(1, stage=5)
assert values("sorted.bin", "<Q") == sorted((keys.at(i).rand(),) for i in range(n)), "sorted.bin"

lines = []
for run in range(2):
    r = Rand(1, stage=6, run=run)
    lines.append(f"round {run}: {sum(r.at(i).rand(100) for i in range(1000))}")
sequence = Rand(1)
lines.append(f"{sequence.rand(1000)} {sequence.rand(1000)}")
got = open(stdout).read().splitlines()
assert got == lines, f"printed {got}, expected {lines}"
print(f"rand_stages: {n} elements in 3 files and {len(lines)} lines as Python draws them")
