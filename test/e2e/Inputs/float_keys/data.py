"""Writes the inputs of float_keys_nan.flow into DIR: values.txt (an f64 value and the line's
number on each line; the values:
NaNs of both signs, +-inf, +-0.0, subnormals, repeated small numbers, random ones) and
right.txt (a join's right side: distinct f64 keys, NaN and -0.0 among them, with ids).

Usage: data.py DIR [COUNT]"""
import random
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 150000
rng = random.Random(7)
special = ['nan', '-nan', 'inf', '-inf', '0.0', '-0.0', '5e-324', '-5e-324', '2.225073858507201e-308',
           '-1e-310', '1.7976931348623157e308', '-1.7976931348623157e308']
lines = []
for _ in range(count):
    r = rng.random()
    if r < 0.10:
        lines.append(rng.choice(['nan', '-nan']))  # 10% NaN, either sign
    elif r < 0.20:
        lines.append(rng.choice(special))
    elif r < 0.60:
        lines.append(repr(float(rng.randint(-20, 20)) / 4))  # repeated keys, many groups
    else:
        lines.append(repr(rng.uniform(-1e6, 1e6)))
with open(f'{out}/values.txt', 'w') as f:
    for i, x in enumerate(lines):
        f.write(f'{x} {i}\n')
right = ['nan', '-nan', '-0.0', 'inf', '-inf', '5e-324', '1.5', '-2.25', '3.0', '1e300']
with open(f'{out}/right.txt', 'w') as f:
    for i, k in enumerate(right):
        f.write(f'{k} {i}\n')
