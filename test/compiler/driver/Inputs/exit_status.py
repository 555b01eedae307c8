"""Runs a command, passes its stdout and stderr through (merged, to stdout), and fails
unless it exits with the expected status. Usage: exit_status.py STATUS COMMAND..."""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(result.stdout)
if result.returncode != expected:
    sys.exit(f"expected exit status {expected}, got {result.returncode}")
