#!/usr/bin/env python3
"""flowc fmt on every .flow file of the source tree (examples, stdlib, tests, benchmarks).

Each script that parses must come out unchanged in meaning and stable: the same syntax tree
(flowc check --dump-ast, places left out), every comment still there, and formatting the
result again changes nothing. Scripts with syntax errors (the tests' bad inputs) must be
refused with exit status 1, never 3. The examples and the standard library must already be
formatted (flowc fmt --check). Usage: fmt_every_script.py FLOWC SOURCE_ROOT
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

FLOWC, ROOT = sys.argv[1], sys.argv[2]
PLACES = re.compile(r"[0-9]+:[0-9]+")
COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def scripts():
    for top in ("examples", "stdlib", "test", "bench", "editors"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("Output", "node_modules")]
            for name in files:
                if name.endswith(".flow"):
                    yield os.path.join(folder, name)


def run(args, text=None):
    return subprocess.run([FLOWC] + args, input=text, capture_output=True)


def trees(paths):
    """The syntax trees of `paths` (one flowc for all: a flowc per script was most of the
    test's time), places left out, in the order given."""
    out = run(["check", "--parse-only", "--dump-ast"] + paths).stdout.decode("utf-8", "replace")
    parts = re.split(r"^Program [^\n]*\n", out, flags=re.M)[1:]
    return [PLACES.sub("", t) for t in parts]


def comments(text):
    # Inside strings `//` is no comment, but a string is kept as it was: both sides agree.
    return [c.strip() for c in COMMENTS.findall(text.decode("utf-8", "replace"))]


def formatted(path):
    with open(path, "rb") as f:
        text = f.read()
    first = run(["fmt", "-"], text)
    if first.returncode == 1:
        return "refused", text, None, None
    if first.returncode != 0:
        return "failed", text, None, "%s: fmt exited %d: %s" % (path, first.returncode, first.stderr.decode()[:300])
    return "formatted", text, first.stdout, None


def main():
    paths = sorted(scripts())
    counts = {"formatted": 0, "refused": 0, "failed": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(formatted, paths))
    done = [] # (path, its text, the formatted text, the formatted text's copy)
    with tempfile.TemporaryDirectory() as tmp:
        for k, (path, (status, text, out, problem)) in enumerate(zip(paths, results)):
            if status != "formatted":
                counts[status] += 1
                if problem:
                    print(problem)
                continue
            copy = os.path.join(tmp, "%d.flow" % k)
            with open(copy, "wb") as f:
                f.write(out)
            done.append((path, text, out, copy))
        # Formatting the results again changes nothing; their trees are the scripts'.
        again = run(["fmt", "--check"] + [d[3] for d in done])
        unstable = set(again.stdout.decode().split("\n"))  # --check names each file it would change
        before, after = trees([d[0] for d in done]), trees([d[3] for d in done])
        if len(before) != len(done) or len(after) != len(done):
            print("flowc check --dump-ast gave %d and %d trees for %d scripts" % (len(before), len(after), len(done)))
            counts["failed"] += 1
        for (path, text, out, copy), t1, t2 in zip(done, before, after):
            problem = ("%s: formatting twice changes it" % path if copy in unstable
                       else "%s: the syntax tree changed" % path if t1 != t2
                       else "%s: a comment changed" % path if comments(text) != comments(out) else None)
            counts["failed" if problem else "formatted"] += 1
            if problem:
                print(problem)
        if again.returncode != 0 and not unstable:
            print("flowc fmt --check failed without naming a file:\n" + again.stderr.decode()[:300])
            counts["failed"] += 1
    owned = [p for p in paths if os.path.relpath(p, ROOT).split(os.sep)[0] in ("examples", "stdlib")]
    unformatted = subprocess.run([FLOWC, "fmt", "--check"] + owned, capture_output=True)
    if unformatted.returncode != 0:
        print("not formatted (run flowc fmt on them):\n" + unformatted.stdout.decode() + unformatted.stderr.decode())
        counts["failed"] += 1
    print("%(formatted)d scripts formatted and checked, %(refused)d with syntax errors refused, "
          "%(failed)d failures" % counts)
    # The tree holds hundreds of scripts: a walk that found few is broken, not green.
    return 0 if counts["failed"] == 0 and counts["formatted"] >= 300 else 1


sys.exit(main())
