"""Builds and runs every ```flow block of a Markdown file that is followed by an
```output FILE block, and checks that the program wrote exactly that text to FILE
(`output stdout`: that it printed exactly that text; `output error`: that the program
failed with a message containing the text), so the
documentation shows what the programs really do. Usage:
doc_runs.py [--ranks P] [--update] FLOWC FILE.md (--ranks P: built with --mpi and run as
P ranks of mpirun; --update: after a change meant to change what the examples write,
puts what they wrote now into FILE.md's output blocks — read the diff before committing)."""
import contextlib
import os
import re
import subprocess
import sys
import tempfile

args = sys.argv[1:]
ranks = None
if args[0] == "--ranks":
    ranks, args = int(args[1]), args[2:]
update = args[0] == "--update"
if update:
    args = args[1:]
flowc, doc = args[0], args[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed"))
from mpirun import launcher  # noqa: E402

sessions = contextlib.ExitStack()  # mpirun's session folder, removed at the end
launch = sessions.enter_context(launcher()) + ["-np", str(ranks)] if ranks else []
text = open(doc).read()
runs = re.findall(r"```flow\n((?:(?!```).)*?)```\n```output (\S+)\n((?:(?!```).)*?)```", text, re.S)
if not runs:
    sys.exit(f"no flow examples with an output block in {doc}")
failed = 0
for n, (script, target, expected) in enumerate(runs, 1):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "example.flow")
        open(path, "w").write(script)
        build = subprocess.run([flowc, "build", "-O0"] + (["--mpi"] if ranks else []) + [path, "-o", os.path.join(tmp, "prog")],
                               capture_output=True, text=True)
        if build.returncode != 0:
            failed += 1
            print(f"example {n} does not build:\n{script}\n{build.stderr}")
            continue
        run = subprocess.run(launch + [os.path.join(tmp, "prog")], cwd=tmp, capture_output=True, text=True)
        if target == "error":
            ok = run.returncode != 0 and expected.strip() in run.stderr
            got = f"exit status {run.returncode}, stderr:\n{run.stderr}"
        elif target == "stdout":
            got = run.stdout
            ok = run.returncode == 0 and got == expected
        else:
            out = os.path.join(tmp, target)
            got = open(out).read() if os.path.exists(out) else f"(no file {target}; stderr: {run.stderr})"
            ok = run.returncode == 0 and got == expected
        if not ok and update and target != "error" and run.returncode == 0:
            old = f"```flow\n{script}```\n```output {target}\n{expected}```"
            text = text.replace(old, f"```flow\n{script}```\n```output {target}\n{got}```", 1)
            print(f"example {n}: output block updated")
        elif not ok:
            failed += 1
            print(f"example {n} gives another result:\n{script}\nexpected {target}:\n{expected}\ngot:\n{got}")
if update:
    open(doc, "w").write(text)
sessions.close()
print(f"{len(runs)} examples run, {failed} failed")
sys.exit(1 if failed else 0)
