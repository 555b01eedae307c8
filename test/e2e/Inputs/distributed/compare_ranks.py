#!/usr/bin/env python3
"""Runs a program built without --mpi once, and the same script built with --mpi under
mpirun at each count of ranks, each in a folder of its own with the same arguments, and
checks that every run prints the same standard output and writes the same files, byte for
byte, and leaves no other file behind.

  compare_ranks.py PLAIN RANKS --ranks 1,2,3,4 --outputs out.bin [--outputs …] [--stdin FILE] -- ARGS…

--stdin FILE: every run reads FILE on its standard input (mpirun gives it to the first rank).

mpirun is started as mpirun.py says.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpirun import launcher  # noqa: E402


def run(command, folder, stdin=None):
    os.makedirs(folder, exist_ok=True)
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as given:
        result = subprocess.run(command, cwd=folder, stdin=given, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                timeout=600)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} in {folder}: exit {result.returncode}\n{result.stderr.decode(errors='replace')}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("plain")
    parser.add_argument("ranks_program")
    parser.add_argument("--ranks", default="1,2,3,4")
    parser.add_argument("--outputs", action="append", default=[])
    parser.add_argument("--stdin")
    argv = sys.argv[1:]
    rest = argv.index("--") if "--" in argv else len(argv)
    a = parser.parse_args(argv[:rest])
    a.args = argv[rest + 1:]
    plain, ranks_program = os.path.abspath(a.plain), os.path.abspath(a.ranks_program)
    stdin = os.path.abspath(a.stdin) if a.stdin else None
    expected = run([plain] + a.args, "one", stdin)
    files = {name: open(os.path.join("one", name), "rb").read() for name in a.outputs}
    for p in [int(x) for x in a.ranks.split(",")]:
        folder = f"ranks{p}"
        with launcher() as mpirun:
            got = run(mpirun + ["-np", str(p), ranks_program] + a.args, folder, stdin)
        if got != expected:
            sys.exit(f"{p} ranks printed\n{got.decode(errors='replace')}\none process printed\n"
                     f"{expected.decode(errors='replace')}")
        for name, data in files.items():
            mine = open(os.path.join(folder, name), "rb").read()
            if mine != data:
                sys.exit(f"{p} ranks wrote {name} of {len(mine)} bytes unlike one process's {len(data)} bytes")
        left = sorted(set(os.listdir(folder)) - set(a.outputs))
        if left:
            sys.exit(f"{p} ranks left {left} in {folder}")
        print(f"{p} ranks: the same output ({len(expected)} bytes printed, {sum(map(len, files.values()))} bytes written)")


if __name__ == "__main__":
    main()
