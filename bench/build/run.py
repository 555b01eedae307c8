#!/usr/bin/env python3
"""How long a generated program takes to compile with and without a header that it
once included: every example's C++ (flowc emit) compiled with -O2 against the work
tree's runtime, and again with `-include HEADER` (default boost/thread/thread.hpp, which
the runtime's request_queue.hpp included until the worker moved behind a pointer),
alternately, ROUNDS times. Prints each example's medians and their ratio, the median
ratio, and the load.

    bench/build/run.py [--header boost/thread/thread.hpp] [--rounds N] [--flowc build/compiler/flowc]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def compile_seconds(cpp, include, extra):
    start = time.monotonic()
    subprocess.run(['c++', '-std=c++20', '-O2', '-pthread', '-I' + include] + extra + ['-c', cpp, '-o', os.devnull],
                   check=True)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--header', default='boost/thread/thread.hpp', help='the header "before" includes too')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--flowc', default=os.path.join(root, 'build', 'compiler', 'flowc'))
    ap.add_argument('--examples', default='*.flow', help='a glob in examples/')
    args = ap.parse_args()
    include = os.path.join(root, 'runtime', 'include')
    with tempfile.TemporaryDirectory() as work:
        print(f'load before: {os.getloadavg()[0]:.2f}; before: with -include {args.header}; {args.rounds} rounds, -O2')
        ratios = []
        print(f'{"example":<22} {"before s":>9} {"after s":>9} {"ratio":>6}')
        for script in sorted(glob.glob(os.path.join(root, 'examples', args.examples))):
            name = os.path.basename(script)[:-5]
            cpp = os.path.join(work, name + '.cpp')
            subprocess.run([args.flowc, 'emit', script, '-o', cpp], check=True, cwd=os.path.dirname(script))
            extra = ['-I' + os.path.dirname(script)]
            times = {'before': [], 'after': []}
            for _ in range(args.rounds):
                times['before'].append(compile_seconds(cpp, include, extra + ['-include', args.header]))
                times['after'].append(compile_seconds(cpp, include, extra))
            b, a = statistics.median(times['before']), statistics.median(times['after'])
            ratios.append(a / b)
            print(f'{name:<22} {b:9.2f} {a:9.2f} {a / b:6.2f}', flush=True)
        print(f'median ratio after/before: {statistics.median(ratios):.2f}; load after: {os.getloadavg()[0]:.2f}')


if __name__ == '__main__':
    sys.exit(main())
