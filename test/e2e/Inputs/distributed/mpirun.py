#!/usr/bin/env python3
"""mpirun as the tests start it: more ranks than cores (--oversubscribe), root allowed (CI
runs as root), and a session folder of its own (--mca orte_tmpdir_base): two mpiruns
that start at once race to make and remove the one they would share under /tmp ("A call
to mkdir was unable to create the desired directory … File exists").

  mpirun.py ARGS…        runs mpirun ARGS so, and exits with its status (lit's %mpirun)
  with launcher() as mpirun: …   the command, for scripts that start mpirun themselves
$FLOW_MPIRUN replaces the command (its session folder is then its own business).
"""
import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile


@contextlib.contextmanager
def launcher():
    if os.environ.get("FLOW_MPIRUN"):
        yield shlex.split(os.environ["FLOW_MPIRUN"])
        return
    folder = tempfile.mkdtemp(prefix="flow-ompi-")
    try:
        yield ["mpirun", "--oversubscribe", "--mca", "orte_tmpdir_base", folder] + (
            ["--allow-run-as-root"] if os.geteuid() == 0 else [])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    with launcher() as mpirun:
        sys.exit(subprocess.run(mpirun + sys.argv[1:]).returncode)
