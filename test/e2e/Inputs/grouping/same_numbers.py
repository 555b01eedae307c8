"""same_numbers.py A B: the two text files hold the same rows of numbers, floats equal
to 1e-9 relative (a fold over floats adds in an unspecified order)."""
import sys

a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
if len(a) != len(b):
    sys.exit('%s has %d rows, %s has %d' % (sys.argv[1], len(a), sys.argv[2], len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    ok = len(x) == len(y)
    for u, v in zip(x, y):
        if u == v:
            continue
        try:
            fu, fv = float(u), float(v)
        except ValueError:
            ok = False
            continue
        ok = ok and abs(fu - fv) <= 1e-9 * max(abs(fu), abs(fv), 1e-300)
    if not ok:
        sys.exit('row %d differs: %s has %r, %s has %r' % (i + 1, sys.argv[1], x, sys.argv[2], y))
