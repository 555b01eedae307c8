#!/usr/bin/env python3
"""Edit → result: how long `flowc run SCRIPT -- ARGS` takes from a changed script to the
program's output, the loop of someone working on a script (issue 31's target: 1.5 s for
examples/mis.flow after an edit that leaves its types alone, 5 s on a cold cache).

A copy of the script is run with a fresh FLOW_CACHE_DIR:

  cold        the first run: the precompiled runtime, the runtime classes of the
              script's types and main() compiled
  edit        after an edit (a new `print` statement appended: main() changes, the
              types do not), ROUNDS times, each a new edit
  edit, no classes cached
              the same, with the cache's compiled classes removed first: what every
              edit cost before the classes were kept (they are compiled beside main())
  unchanged   the same script again: the cached program runs

Prints each row's median and the 1-minute load before and after. Not a test.

    bench/build/edit.py [--rounds N] [--flowc build/compiler/flowc]
                        [--script examples/mis.flow] [--args "--edges=1000"]
"""
import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed_run(flowc, script, args, env):
    start = time.monotonic()
    subprocess.run([flowc, 'run', script, '--'] + args, check=True, env=env, stdout=subprocess.DEVNULL,
                   cwd=os.path.dirname(script))
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--flowc', default=os.path.join(root, 'build', 'compiler', 'flowc'))
    ap.add_argument('--script', default=os.path.join(root, 'examples', 'mis.flow'))
    ap.add_argument('--args', default='--edges=1000', help="the program's flags, as one string")
    args = ap.parse_args()
    flowc = os.path.abspath(args.flowc)
    program_args = shlex.split(args.args)
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, os.path.basename(args.script))
        shutil.copy(args.script, script)
        env = dict(os.environ, FLOW_CACHE_DIR=os.path.join(work, 'cache'))
        env.pop('CXXFLAGS', None)
        print(f'load before: {os.getloadavg()[0]:.2f}; flowc run {os.path.basename(script)} -- {args.args}, '
              f'{args.rounds} rounds; {flowc}')
        rows = {'cold': [timed_run(flowc, script, program_args, env)]}
        edits = 0

        def edit():
            nonlocal edits
            edits += 1
            with open(script, 'a') as f:
                f.write(f'print "edit {edits}";\n')

        for _ in range(args.rounds):
            edit()
            rows.setdefault('edit', []).append(timed_run(flowc, script, program_args, env))
            edit()
            shutil.rmtree(os.path.join(work, 'cache', 'parts'), ignore_errors=True)
            rows.setdefault('edit, no classes cached', []).append(timed_run(flowc, script, program_args, env))
            rows.setdefault('unchanged', []).append(timed_run(flowc, script, program_args, env))
        print(f'{"build":<26} {"median s":>9}  all')
        for name, times in rows.items():
            print(f'{name:<26} {statistics.median(times):9.2f}  {" ".join(f"{t:.2f}" for t in times)}')
        print(f'load after: {os.getloadavg()[0]:.2f}')


if __name__ == '__main__':
    sys.exit(main())
