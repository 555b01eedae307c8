"""Runs a command while holding the cache's lock as a build in progress does (flowc's
CacheHold: a shared flock on CACHE/lock), and exits with its status.

  hold_cache.py CACHE COMMAND…"""
import fcntl
import os
import subprocess
import sys

cache = sys.argv[1]
with open(os.path.join(cache, "lock"), "a") as lock:
    fcntl.flock(lock, fcntl.LOCK_SH)
    sys.exit(subprocess.run(sys.argv[2:]).returncode)
