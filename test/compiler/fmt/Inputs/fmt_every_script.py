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


def run(args, text):
    return subprocess.run([FLOWC] + args, input=text, capture_output=True)


def tree(text):
    out = run(["check", "--parse-only", "--dump-ast", "-"], text).stdout
    return PLACES.sub("", out.decode("utf-8", "replace"))


def comments(text):
    # Inside strings `//` is no comment, but a string is kept as it was: both sides agree.
    return [c.strip() for c in COMMENTS.findall(text.decode("utf-8", "replace"))]


def check(path):
    with open(path, "rb") as f:
        text = f.read()
    first = run(["fmt", "-"], text)
    if first.returncode == 1:
        return "refused", None
    if first.returncode != 0:
        return "failed", "%s: fmt exited %d: %s" % (path, first.returncode, first.stderr.decode()[:300])
    out = first.stdout
    if run(["fmt", "-"], out).stdout != out:
        return "failed", "%s: formatting twice changes it" % path
    if tree(text) != tree(out):
        return "failed", "%s: the syntax tree changed" % path
    if comments(text) != comments(out):
        return "failed", "%s: a comment changed" % path
    return "formatted", None


def main():
    paths = sorted(scripts())
    counts = {"formatted": 0, "refused": 0, "failed": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for status, problem in pool.map(check, paths):
            counts[status] += 1
            if problem:
                print(problem)
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
