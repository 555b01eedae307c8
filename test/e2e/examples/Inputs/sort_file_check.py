"""Checks sort_file.flow's output: the input's records, each once, in key order.
Usage: sort_file_check.py records.bin sorted.bin"""
import sys

def records(path):
    data = open(path, "rb").read()
    assert len(data) % 100 == 0, f"{path}: not whole 100-byte records"
    return [data[i:i + 100] for i in range(0, len(data), 100)]

given, got = records(sys.argv[1]), records(sys.argv[2])
assert sorted(given) == sorted(got), "the output is not a permutation of the input"
assert all(got[i][:10] <= got[i + 1][:10] for i in range(len(got) - 1)), "keys out of order"
print(f"{len(got)} records sorted by key, none lost or repeated")
