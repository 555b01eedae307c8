"""Checks every ```flow block of a Markdown file with `flowc check`, so the language
reference shows only scripts that pass. Usage: doc_examples.py FLOWC FILE.md [FLOWC ARGS...]
(e.g. -I examples, for the headers the examples import)"""
import os
import re
import subprocess
import sys
import tempfile

flowc, doc, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(doc).read()
blocks = re.findall(r"```flow\n(.*?)```", text, re.S)
if not blocks:
    sys.exit(f"no flow examples found in {doc}")
failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for n, block in enumerate(blocks, 1):
        path = os.path.join(tmp, f"{os.path.basename(doc)}.example{n}.flow")
        open(path, "w").write(block)
        result = subprocess.run([flowc, "check", *extra, path], capture_output=True, text=True)
        if result.returncode != 0:
            failed += 1
            print(f"example {n} of {doc} does not pass flowc check:\n{block}\n{result.stderr}")
print(f"{len(blocks)} examples checked, {failed} failed")
sys.exit(1 if failed else 0)
