"""Checks every examples/*.flow (so a new example cannot be forgotten)."""
import glob
import os
import subprocess
import sys

flowc, examples = sys.argv[1], sys.argv[2]
scripts = sorted(glob.glob(os.path.join(examples, "*.flow")))
if len(scripts) < 12:
    sys.exit(f"expected at least 12 examples, found {len(scripts)}")
sys.exit(subprocess.run([flowc, "check", *scripts]).returncode)
