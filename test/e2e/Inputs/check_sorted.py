"""Checks that OUTPUT is INPUT sorted. Usage: check_sorted.py INPUT OUTPUT FORMAT [desc]
(FORMAT: a struct format of one element, e.g. Q for u64, or IIII with a key of the first
K fields given as FORMAT:K)."""
import struct
import sys

inp, out, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
desc = len(sys.argv) > 4 and sys.argv[4] == "desc"
keys = None
if ":" in fmt:
    fmt, k = fmt.split(":")
    keys = int(k)
size = struct.calcsize("<" + fmt)


def read(path):
    data = open(path, "rb").read()
    assert len(data) % size == 0, f"{path}: {len(data)} bytes is not a multiple of {size}"
    return [struct.unpack_from("<" + fmt, data, i) for i in range(0, len(data), size)]


a, b = read(inp), read(out)
assert len(a) == len(b), f"{len(a)} elements in, {len(b)} out"
key = (lambda r: r[:keys]) if keys else (lambda r: r)
expected = sorted(a, key=key, reverse=desc)
assert [key(r) for r in b] == [key(r) for r in expected], "not sorted as expected"
assert sorted(a) == sorted(b), "output is not a permutation of the input"
print(f"{len(b)} elements sorted")
