"""The least budget a program names when --memory is too small is the least that works:
the program runs with it, and is refused with a little less, naming the same budget.

usage: least_budget.py [--ranks P] PROGRAM TOO_SMALL [ARG ...]
Runs PROGRAM --memory TOO_SMALL ARG... (exit status 2, "give --memory N"), then with
--memory N (exit status 0: ARGS decide whether it runs or only plans, --plan), then with
N - 1 and N - N/64 (exit status 2, naming N again). Prints N and what ran. --ranks P:
PROGRAM is built with --mpi and runs as P ranks of mpirun (distributed/mpirun.py).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed"))
from mpirun import launcher  # noqa: E402

argv = sys.argv[1:]
ranks = None
if argv[0] == "--ranks":
    ranks, argv = argv[1], argv[2:]
program, too_small, args = argv[0], argv[1], argv[2:]


def run(memory):
    command = [program, "--memory", str(memory)] + args
    if ranks is None:
        r = subprocess.run(command, capture_output=True, text=True)
    else:
        with launcher() as mpirun:
            r = subprocess.run(mpirun + ["-np", ranks] + command, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def named(memory):
    status, out = run(memory)
    if status != 2:
        sys.exit(f"--memory {memory}: expected exit status 2, got {status}: {out}")
    m = re.search(r"the least budget that holds this run's plan is .*: give --memory (\d+)\b", out)
    if not m:
        sys.exit(f"--memory {memory}: no least budget in: {out}")
    return int(m.group(1))


least = named(too_small)
status, out = run(least)
if status != 0:
    sys.exit(f"--memory {least} (the least budget named): exit status {status}: {out}")
for below in sorted({least - 1, least - least // 64}):
    again = named(below)
    if again != least:
        sys.exit(f"--memory {below} names {again}, --memory {too_small} named {least}")
print(f"least budget {least}: exit status 0; {least - 1} and {least - least // 64} refused, naming {least}")
