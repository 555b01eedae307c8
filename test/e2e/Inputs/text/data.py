"""Text for the str e2e tests, and the answers computed by plain Python.

    data.py words DIR    DIR/corpus.txt (mixed case, punctuation, UTF-8, \\r\\n lines,
                         blank lines, a last line without a newline) and
                         DIR/expected_top.txt: the 50 most frequent words, as
                         `COUNT WORD` lines, by count descending, then word (bytewise)
    data.py lines DIR    DIR/log.txt (duplicated lines, spaces, tabs, empty lines) —
                         the sort -u answer comes from GNU sort, not from here
    data.py join DIR     DIR/users.txt (`user country`), DIR/visits.txt (one user name
                         per line, some unknown) and DIR/expected_join.txt: visits per
                         country of known users, `COUNTRY COUNT`, by country
    data.py strings DIR  DIR/items.txt and DIR/expected_strings.txt: what
                         strings.flow computes per line, by Python's own str methods
"""
import collections
import os
import random
import sys

random.seed(29)
WORDS = ["the", "The", "THE", "cat", "dog", "run", "ünïcode", "naïve", "x", "a1", "b2b",
         "Flow", "flow", "sort", "external", "memory", "zebra", "Apple", "apple"] + \
        ["w%d" % i for i in range(3000)]
PUNCT = [" ", " ", " ", ", ", ". ", "! ", " -- ", "\t", " (", ") ", "'", "\"", "; "]


def word_runs(line):
    """Maximal runs of ASCII letters and digits and bytes >= 0x80, lowered (ASCII)."""
    data = line.encode()
    out, cur = [], bytearray()
    for b in data:
        if (48 <= b <= 57) or (65 <= b <= 90) or (97 <= b <= 122) or b >= 0x80:
            cur.append(b + 32 if 65 <= b <= 90 else b)
        elif cur:
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        out.append(bytes(cur))
    return out


def words(d):
    lines = []
    for i in range(60000):
        n = random.choice([0, 1, 3, 8, 15])
        parts = []
        for _ in range(n):
            r = random.random()
            # common words, a long tail, and rare words (so the distinct words outgrow a small budget)
            w = random.choice(WORDS) if r < 0.5 else "w%d" % int(random.paretovariate(1.2)) if r < 0.8 \
                else "r%d" % random.randrange(200000)
            parts.append(w + random.choice(PUNCT))
        lines.append("".join(parts).rstrip(" "))
    text = "".join(l + ("\r\n" if i % 7 == 0 else "\n") for i, l in enumerate(lines)) + "last line, without newline"
    with open(os.path.join(d, "corpus.txt"), "w", newline="") as f:
        f.write(text)
    counts = collections.Counter()
    for line in text.replace("\r\n", "\n").split("\n"):
        counts.update(word_runs(line))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:50]
    with open(os.path.join(d, "expected_top.txt"), "wb") as f:
        for w, c in top:
            f.write(b"%d %s\n" % (c, w))


def lines(d):
    pool = ["GET /index.html 200", "POST /api  500", "\tindented", "", "z", "Z", "ä", "a",
            "GET /index.html 200 ", "x" * 200] + ["line %d of the log" % i for i in range(20000)]
    with open(os.path.join(d, "log.txt"), "w") as f:
        for _ in range(120000):
            f.write(random.choice(pool) + "\n")


def join(d):
    countries = ["de", "fr", "nz", "jp", "br", "us", "ke"]
    users = {"user%d" % i: random.choice(countries) for i in range(5000)}
    with open(os.path.join(d, "users.txt"), "w") as f:
        for u, c in sorted(users.items(), key=lambda kv: random.random()):
            f.write("%s %s\n" % (u, c))
    per_country = collections.Counter()
    with open(os.path.join(d, "visits.txt"), "w") as f:
        for _ in range(100000):
            u = "user%d" % random.randint(0, 5500)
            f.write(u + "\n")
            if u in users:
                per_country[users[u]] += 1
    with open(os.path.join(d, "expected_join.txt"), "w") as f:
        for c in sorted(per_country):
            f.write("%s %d\n" % (c, per_country[c]))


def strings(d):
    with open(os.path.join(d, "items.txt"), "w") as f, open(os.path.join(d, "expected_strings.txt"), "w") as e:
        for i in range(3000):
            name = random.choice(["  Widget ", "gadget", "GIZMO", "thing-a-ma-jig", "", " "]) + str(i)
            price = random.randint(0, 10**6)
            line = "%s,%d,%s" % (name, price, random.choice(["red", "green", "blue"]))
            f.write(line + "\n")
            fields = line.split(",")
            n = fields[0].strip().lower()
            # what strings.flow prints: name, price + 1, colour's first letter upper,
            # where "-" is (or -1), the length, starts/ends/contains, a slice
            e.write("%s|%d|%s|%d|%d|%s|%s|%s|%s\n" % (
                n, int(fields[1]) + 1, fields[2][:1].upper() + fields[2][1:], n.find("-"), len(line),
                str(n.startswith("g")).lower(), str(n.endswith("7")).lower(), str("ma" in n).lower(),
                line[2:5] if len(line) >= 5 else ""))


if __name__ == "__main__":
    {"words": words, "lines": lines, "join": join, "strings": strings}[sys.argv[1]](sys.argv[2])
