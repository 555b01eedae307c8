"""Makes DIR a 0700 folder owned by user 65534 (nobody) and runs the rest of the
command line with FLOW_CACHE_DIR=DIR, printing its stderr; only root can give a folder
away, so other users get a line saying it was not checked."""
import os
import subprocess
import sys

folder, command = sys.argv[1], sys.argv[2:]
if os.geteuid() != 0:
    print('not root: not checked')
    sys.exit(0)
os.makedirs(folder, mode=0o700)
os.chown(folder, 65534, 65534)
result = subprocess.run(command, env=dict(os.environ, FLOW_CACHE_DIR=folder), stderr=subprocess.PIPE, text=True)
print(result.stderr, end='')
sys.exit(0 if result.returncode == 1 else 1)
