"""q.pop_below against item-at-a-time time-forward processing, on the same layered DAG:
examples/dag_levels.flow (a layer a batch: pop_below and a streaming reduce) and
bench/pq/dag_by_hand.flow (top, pop and grouping by hand), built with -O2 and run
alternately at --threads 1 and 2; every round checks that both wrote the same file.

Usage: python3 bench/pq/pop_below.py [--rounds N] [--flowc FLOWC] [-- PROGRAM FLAGS]
(default: 3 rounds, --layers=100 --width=100000 --memory 256MiB: 10 M nodes, 20 M
messages). Check the load first: other work on the machine skews every figure."""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--flowc", default=os.path.join(root, "build", "compiler", "flowc"))
parser.add_argument("flags", nargs="*", default=["--layers=100", "--width=100000", "--memory", "256MiB"])
args = parser.parse_args()

with tempfile.TemporaryDirectory() as work:
    programs = {"by_hand": os.path.join(root, "bench", "pq", "dag_by_hand.flow"),
                "pop_below": os.path.join(root, "examples", "dag_levels.flow")}
    for name, script in programs.items():
        subprocess.run([args.flowc, "build", script, "-o", os.path.join(work, name)], check=True,
                       stdout=subprocess.DEVNULL)
    print(f"load {os.getloadavg()[0]:.2f}; flags: {' '.join(args.flags)}")
    for threads in (1, 2):
        for r in range(1, args.rounds + 1):
            times = {}
            for name in programs:
                start = time.monotonic()
                subprocess.run([os.path.join(work, name), *args.flags, "--threads", str(threads)], cwd=work,
                               check=True, stdout=subprocess.DEVNULL)
                times[name] = time.monotonic() - start
                os.replace(os.path.join(work, "dag_longest.txt"), os.path.join(work, name + ".txt"))
            if not filecmp.cmp(os.path.join(work, "by_hand.txt"), os.path.join(work, "pop_below.txt"), shallow=False):
                sys.exit("the two programs wrote different files")
            print(f"threads {threads} round {r}: by hand {times['by_hand']:.2f} s, pop_below {times['pop_below']:.2f} s, "
                  f"pop_below / by hand {times['pop_below'] / times['by_hand']:.2f}")
    print(f"load {os.getloadavg()[0]:.2f}")
