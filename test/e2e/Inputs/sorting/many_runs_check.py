"""The join of many_runs.flow in plain Python: the records (k, v) of joined.bin, sorted
by k, equal to the pairs of the even i and the i divisible by 3 that share a key."""
import struct
import sys

path, n = sys.argv[1], int(sys.argv[2])
data = open(path, 'rb').read()
got = [struct.unpack_from('<QQ', data, o) for o in range(0, len(data), 16)]
want = sorted(((i * 2654435761) % (1 << 40), i + i * 7) for i in range(0, n, 6))
print(f'{len(got)} records', 'as Python computes them' if got == want else 'DIFFER from Python')
