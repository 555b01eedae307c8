#!/usr/bin/env python3
"""How long `flowc build` of each example takes now, beside the build as it was when
issue 18 measured it (every program parsed the runtime's headers, and those included
Boost.Thread's): each example is built with `flowc build -O2`, alternately

  before  no precompiled runtime (FLOW_CACHE_DIR is a file, so flowc cannot use its
          cache), one translation unit (FLOW_BUILD_JOBS=1) and `-include
          boost/thread/thread.hpp` (what the runtime's request_queue.hpp included until
          the disk worker moved behind a pointer)
  after   as flowc builds today: the runtime's headers precompiled in the cache (made by
          one untimed build first, as the first build on a machine makes it), and the
          program compiled in parts on the CPUs flowc may use (its default -j: main() and
          the runtime's classes of the script's types at once, docs/install.md)

ROUNDS times, and prints each example's medians (wall and CPU seconds of the compiler),
their ratio, the median ratio and the load before and after. Not a test. The CPU time
(the compilers' user + system seconds) is what a busy machine pays: a parts build
takes more of it than a one-part build, and less wall-clock time.

`before` uses the same flowc and runtime as `after` unless --before-flowc names another
build's flowc (with its own runtime, e.g. of the commit the issue was measured at): then
the ratio also shows what changed in the runtime's headers and the generated code.

    bench/build/run.py [--rounds N] [--flowc build/compiler/flowc] [--before-flowc FLOWC]
                       [--examples GLOB]
"""
import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_seconds(flowc, script, out, env):
    """Wall and CPU (children's user + system) seconds of one `flowc build`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([flowc, 'build', '-O2', script, '-o', out], check=True, env=env, cwd=os.path.dirname(out))
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--flowc', default=os.path.join(root, 'build', 'compiler', 'flowc'))
    ap.add_argument('--before-flowc', help='the flowc of `before` (default: --flowc)')
    ap.add_argument('--examples', default='*.flow', help='a glob in examples/')
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        no_cache = os.path.join(work, 'not-a-folder')
        open(no_cache, 'w').close()
        cache = os.path.join(work, 'cache')
        env = {k: v for k, v in os.environ.items() if k not in ('CXXFLAGS', 'FLOW_CACHE_DIR')}
        configs = {'before': dict(env, FLOW_CACHE_DIR=no_cache, CXXFLAGS='-include boost/thread/thread.hpp',
                                  FLOW_BUILD_JOBS='1'),
                   'after': dict(env, FLOW_CACHE_DIR=cache)}
        flowcs = {'before': os.path.abspath(args.before_flowc or args.flowc), 'after': os.path.abspath(args.flowc)}
        scripts = sorted(glob.glob(os.path.join(root, 'examples', args.examples)))
        build_seconds(flowcs['after'], scripts[0], os.path.join(work, 'warm'), configs['after'])  # makes the cache
        jobs = env.get('FLOW_BUILD_JOBS') or str(len(os.sched_getaffinity(0)))
        print(f'load before: {os.getloadavg()[0]:.2f}; {args.rounds} rounds of flowc build -O2, alternating; '
              f'before: {flowcs["before"]}, after: {flowcs["after"]} (-j{jobs})')
        print(f'{"example":<22} {"before s":>9} {"after s":>8} {"ratio":>6} {"before cpu":>11} {"after cpu":>10} {"ratio":>6}')
        wall_ratios, cpu_ratios = [], []
        for script in scripts:
            name = os.path.basename(script)[:-5]
            times = {c: [] for c in configs}
            for _ in range(args.rounds):
                for c, e in configs.items():
                    times[c].append(build_seconds(flowcs[c], script, os.path.join(work, name + '-' + c), e))
            b, a = (statistics.median(t[0] for t in times[c]) for c in ('before', 'after'))
            bc, ac = (statistics.median(t[1] for t in times[c]) for c in ('before', 'after'))
            wall_ratios.append(a / b)
            cpu_ratios.append(ac / bc)
            print(f'{name:<22} {b:9.2f} {a:8.2f} {a / b:6.2f} {bc:11.2f} {ac:10.2f} {ac / bc:6.2f}', flush=True)
        print(f'median ratio after/before: wall {statistics.median(wall_ratios):.2f}, compiler CPU '
              f'{statistics.median(cpu_ratios):.2f}; load after: {os.getloadavg()[0]:.2f}')


if __name__ == '__main__':
    sys.exit(main())
