"""Recomputes for_stages.flow's outputs in Python: for_stages.py N DIR PRINTED."""
import re
import sys
from collections import Counter

n, d, printed = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def line_of(i):
    words = 0 if i % 7 == 0 else 40 if i % 500 == 3 else i % 11
    return str(i) + ''.join((' W' if j % 5 == 0 else ' w') + str((i * 31 + j * 17) % 503) for j in range(words))


lines = [line_of(i) for i in range(n)]
words_of = lambda s: re.findall(r'[A-Za-z0-9]+', s)  # ASCII text: runs of letters and digits

want = {}
want['text.txt'] = ''.join(l + '\n' for l in lines)
counts = Counter(w for l in lines for w in words_of(l.lower()) if w.startswith('w'))
want['counts.txt'] = ''.join(f'{c} {w}\n' for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])))
want['long.txt'] = ''.join(f'{l.split(" ")[0]}:{w.upper()}\n' for l in lines for w in l.split(' ')[1:] if len(w) >= 3)
spans = {}  # word: [first line, last line, longest line, line numbers xor-ed]
for l in lines:
    number, *ws = l.split(' ')
    for w in ws:
        i = int(number)
        if w not in spans:
            spans[w] = [i, i, len(l), i]
        else:
            s = spans[w]
            s[1], s[2], s[3] = i, max(s[2], len(l)), s[3] ^ i
want['spans.txt'] = ''.join(f'{w} {s[0]} {s[1]} {s[2]} {s[3]}\n' for w, s in sorted(spans.items(), key=lambda ws: ws[0].encode()))
total = sum(len(w) + seen % 2 for seen, l in enumerate(lines, 1) for w in words_of(l))
want_printed = f'total {total} over {n} lines\n'

for name, text in want.items():
    with open(f'{d}/{name}') as f:
        got = f.read()
    if got != text:
        sys.exit(f'for_stages: {name} differs from Python ({len(got)} bytes, want {len(text)})')
with open(printed) as f:
    if f.read() != want_printed:
        sys.exit(f'for_stages: the printed total differs from Python: want {want_printed!r}')
print(f'for_stages: {n} lines, every output as Python computes it')
