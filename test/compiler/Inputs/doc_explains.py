"""Checks every `flowc explain` output shown in a Markdown file against flowc: an indented
command line `flowc explain NAME.flow ARGS…` (optionally after `$ `) followed by a fenced
block of its output is run on the last ```flow block before it (saved as NAME.flow), and
each line of the fenced block must be the next line flowc prints; a line `...` stands
for any lines (the sample leaves them out). So the plans the docs show cannot drift from
what flowc prints. Usage: doc_explains.py FLOWC FILE.md"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

flowc, doc = sys.argv[1], sys.argv[2]
text = open(doc).read()
samples = list(re.finditer(r"^ {4}(?:\$ )?flowc explain (\S+\.flow)([^\n]*)\n\n```\n(.*?)```", text, re.M | re.S))
if not samples:
    sys.exit(f"no flowc explain samples in {doc}")
failed = 0
for m in samples:
    name, args, shown = m.group(1), shlex.split(m.group(2)), m.group(3).splitlines()
    scripts = re.findall(r"```flow\n(.*?)```", text[:m.start()], re.S)
    if not scripts:
        sys.exit(f"{doc}: no ```flow block before `flowc explain {name}`")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, name), "w").write(scripts[-1])
        run = subprocess.run([flowc, "explain", name] + args, cwd=tmp, capture_output=True, text=True)
    got = run.stdout.splitlines()
    at, problem = 0, None
    for i, line in enumerate(shown):
        if line == "...":
            following = next((l for l in shown[i + 1:] if l != "..."), None)
            while at < len(got) and following is not None and got[at] != following:
                at += 1
            continue
        if at >= len(got) or got[at] != line:
            problem = f"the sample's line {i + 1}:\n  {line}\nflowc printed:\n  {got[at] if at < len(got) else '(nothing more)'}"
            break
        at += 1
    if run.returncode != 0 or problem:
        failed += 1
        print(f"`flowc explain {name}{m.group(2)}` in {doc} differs from flowc: {problem or run.stderr}")
print(f"{len(samples)} explain samples checked, {failed} differ")
sys.exit(1 if failed else 0)
