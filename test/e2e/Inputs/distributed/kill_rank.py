#!/usr/bin/env python3
"""Starts `mpirun … PROGRAM ARGS` in the current folder, waits until its ranks run, kills
the rank process of the highest pid with SIGKILL, and reports how mpirun ended.

  kill_rank.py PROGRAM ARGS…
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpirun import launcher  # noqa: E402

program = os.path.abspath(sys.argv[1])
with launcher() as mpirun:
    job = subprocess.Popen(mpirun + ["-np", "3", program] + sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ranks = []
    deadline = time.time() + 60
    while len(ranks) < 3 and time.time() < deadline:
        ranks = [int(p) for p in subprocess.run(["pgrep", "-f", "^" + program], stdout=subprocess.PIPE).stdout.split()]
        time.sleep(0.05)
    if len(ranks) < 3:
        job.kill()
        sys.exit("the ranks did not start")
    time.sleep(0.5)  # well into the run
    os.kill(max(ranks), signal.SIGKILL)
    out, err = job.communicate(timeout=120)
print(f"mpirun ended with status {job.returncode}")
print("stdout:", out.decode(errors="replace").strip())
