"""Checks position_stages.flow's outputs against references written from the docs:
windows of the values, the Bernoulli sample of sequence.hpp's formula (seed 1, each
sample stage's node number from `flowc explain --format=json`), positions from 0."""
import json
import struct
import sys

M = (1 << 64) - 1


def mix(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def kept(n, fraction, stage, seed=1):
    key = mix(seed ^ mix(stage))
    return [i for i in range(n) if fraction >= 1 or mix((key + i) & M) < int(fraction * 2.0**64)]


def records(path, fmt):
    data = open(path, "rb").read()
    size = struct.calcsize(fmt)
    assert len(data) % size == 0, f"{path}: {len(data)} bytes is no whole number of {size}-byte records"
    return [struct.unpack_from(fmt, data, at) for at in range(0, len(data), size)]


def main(plan_json, n, fraction):
    stages = sorted(node["id"] for node in json.load(open(plan_json))["nodes"] if node["kind"] == "sample")
    assert len(stages) == 2, stages
    values = [(i * 7 + 3) % 1000 for i in range(n)]
    windows = [tuple(values[i - 2 : i + 1]) for i in range(2, n)]
    assert records("windows.bin", "<3I") == windows, "window 3"
    sample = kept(n, fraction, stages[0])
    assert [r[0] for r in records("sample.bin", "<Q")] == sample, "sample"
    assert abs(len(sample) - n * fraction) < 5 * (n * fraction) ** 0.5, f"{len(sample)} of {n} kept"
    enumerated = [(i, (i * 13) % 101) for i in range(n)]
    assert records("enumerated.bin", "<QH6x") == enumerated, "enumerate"
    expected = [(w, w + 1, w, w + 1) for w in range(n - 1)]
    assert records("zipped.bin", "<IIQQ") == expected, "zip of a window and an enumeration"
    print(f"ok: {len(windows)} windows, {len(sample)} sampled, {len(enumerated)} enumerated, {len(expected)} zipped")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
