#!/usr/bin/env python3
"""Runs a program (one rank of mpirun each) and checks its peak resident memory:
`resident.py LIMIT_MIB PROGRAM ARGS…` prints "resident within LIMIT MiB" or fails
with the peak."""
import os
import resource
import subprocess
import sys

limit = float(sys.argv[1])
status = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
rank = os.environ.get("OMPI_COMM_WORLD_RANK", "-")
if status != 0 or peak > limit:
    sys.exit(f"rank {rank}: status {status}, resident peak {peak:.1f} MiB (limit {limit} MiB)")
print(f"rank {rank}: resident within {limit:g} MiB")
