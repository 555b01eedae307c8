#!/usr/bin/env python3
"""timed.py SECONDS CMD...: runs CMD (a leading `not` expects failure); fails if it takes
longer than SECONDS or its exit status is not the expected one."""
import subprocess, sys, time

limit = float(sys.argv[1])
cmd = sys.argv[2:]
expect_failure = cmd[0] == "not"
if expect_failure:
    cmd = cmd[1:]
start = time.monotonic()
try:
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit)
except subprocess.TimeoutExpired:
    sys.exit("timed out after %.1f s: %s" % (limit, " ".join(cmd)))
elapsed = time.monotonic() - start
if (p.returncode != 0) != expect_failure or p.returncode < 0:
    sys.exit("exit status %d: %s" % (p.returncode, " ".join(cmd)))
print("%.2f s" % elapsed)
