"""Checks examples/word_count.flow's answer against Python's collections.Counter.

Usage: word_count_check.py TEXT TOP K. A word is a maximal run of ASCII letters, digits
and bytes >= 0x80, lowered (ASCII letters only); TOP holds the K most frequent as
`COUNT WORD` lines, by count descending, then word bytewise."""
import collections
import re
import sys

text, top, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
counts = collections.Counter()
with open(text, "rb") as f:
    for line in f:
        counts.update(w.lower() for w in re.findall(rb"[A-Za-z0-9\x80-\xff]+", line))
expected = b"".join(b"%d %s\n" % (n, w) for w, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k])
got = open(top, "rb").read()
if got != expected:
    sys.exit("word_count: the top %d differ from Python's:\n%r\n%r" % (k, got[:300], expected[:300]))
print("word_count: the top %d of %d distinct words match" % (k, len(counts)))
