#!/usr/bin/env python3
"""Differential test of flowc: generated scripts built and run under two memory budgets.

    test/compiler/fuzz/build_and_compare.py --flowc build/compiler/flowc --count 150 \\
        --seed 1 --out /tmp/fuzz-out

Not part of the test suite (it builds every script: minutes). For each script that
Inputs/gen_scripts.py generates: `flowc build -O 0` (two builds at once), then the
program runs twice, each in its own fresh working directory: with a budget that keeps
every sort and queue in memory (--memory 256MiB), and with a small one (from --memory
16KiB up to what the program names as the least budget that holds its plan, when it stops with status 2;
the scripts declare blocks of 4 to 64 KiB) under which sorts and queues go to disk. Standard output and every file the
program writes must be the same byte for byte, and the small run of a script that
sorts must have written to disk (--stats=json: bytes written to disks other than its output
files and standard output > 0).

Prints the counts (generated, built, build failures, run failures, differences,
small-budget runs that stayed in memory) and keeps every failing script with its logs
in OUT/fail/; exits with status 1 on any build failure, run failure, difference or
budget accepted at start that failed mid-run (a small run that stayed in memory is only
counted: the script's sorts may be unused or fit in even the smallest budget). --avoid NAME,... passes switches to
the generator to leave out constructs with known bugs (gen_scripts.py --help); without
it, the known open bugs (gen_scripts.KNOWN_BUGS) are left out, and --avoid= generates
them too.

--threads 1,2,3,8 (the default): both budgets run again at each of these --threads (the
small one found again at that thread count: a merge needs a little more memory per
thread), and every run must print and write exactly what the first run (the big budget,
default threads) did; a difference or failure there is counted as a thread difference.
An empty list leaves the dimension out.

--ranks 2,3: the script is also built with --mpi (docs/distributed.md) and both budgets
run again as each of these numbers of ranks of mpirun (the small one found again); every
run must print and write exactly what the first run did. A build failure, run failure or
difference there is counted as a rank difference. Empty (the default): left out.

--functions: each script also comes written through functions and modules
(Inputs/gen_functions.py: value, stream, generic and block-body functions, vectors by
reference, nested calls, modules), in OUT/work/genNNNNN/genNNNNN-fn/. It is built and
run at the same two budgets (its small budget found the same way), and both runs must
print and write exactly what the plain script does with the big budget. Its failures are
counted apart (function versions: build failures, run failures, differences from the
plain script), kept in OUT/fail/ with the plain script, and fail the run too.

    test/compiler/fuzz/build_and_compare.py --functions --avoid fnreduce --count 60 \
        --seed 1 --out /tmp/fuzz-fn
"""
import argparse
import filecmp
import json
import os
import re
import resource
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'Inputs'))
import gen_functions  # noqa: E402
import gen_scripts  # noqa: E402


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(cmd, cwd=None, timeout=60):
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout, preexec_fn=no_core)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b'timeout'


def has_sort(text):
    return bool(re.search(r'\|\s*sort\b|\bmerge\(', text))


class Job:
    def __init__(self, args, k):
        self.args = args
        self.name = f'gen{k:05d}'
        self.dir = os.path.join(args.out, 'work', self.name)
        self.script = os.path.join(self.dir, self.name + '.flow')
        self.exe = os.path.join(self.dir, self.name)
        # --functions: the same computation through functions, in a folder with its modules
        self.fn_dir = os.path.join(self.dir, self.name + '-fn')
        self.fn_script = os.path.join(self.fn_dir, self.name + '.flow')
        self.fn_exe = os.path.join(self.fn_dir, self.name)
        self.log = []
        self.result = None  # 'build', 'run', 'diff', 'threads', 'memory', 'fnbuild', 'fnrun', 'fndiff' or 'ok'

    def note(self, s):
        self.log.append(s)

    def build(self, script, exe, what='flowc build', extra=()):
        st, out, err = run([self.args.flowc, 'build', '-O' + self.args.opt, *extra, script, '-o', exe],
                           timeout=self.args.build_timeout)
        if st != 0:
            self.note(f'{what}: status {st}\n' + err.decode(errors='replace'))
            return False
        return True

    def run_in(self, label, flags, exe=None, launch=()):
        wd = os.path.join(self.dir, label)
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        stats = os.path.join(self.dir, label + '.stats.json')
        st, out, err = run([*launch, exe or self.exe, *flags, f'--stats=json:{stats}'], cwd=wd,
                           timeout=self.args.run_timeout)
        with open(os.path.join(self.dir, label + '.stdout'), 'wb') as f:
            f.write(out)
        return st, out, err, wd, stats

    accepted_budget_failed = False

    def run_budgets(self, exe, prefix='', extra=(), launch=()):
        """Runs exe (started by the command `launch`, if any) with the big budget and a
        small one (each with the flags `extra`): (big, small) as (stdout, work dir, stats,
        flags) each, or None after a failed run (noted)."""
        extra = list(extra)
        st, out_big, err, wd_big, stats_big = self.run_in(prefix + 'big', ['--memory', self.args.big] + extra, exe,
                                                          launch)
        if st != 0:
            self.note(f'{prefix}run with --memory {self.args.big}: status {st}\n' + err.decode(errors='replace')[-3000:])
            return None
        mem = self.args.small_memory
        doubled = False
        while True:
            flags = ['--memory', mem] + (['--block', self.args.small_block] if self.args.small_block else []) + extra
            st, out_small, err, wd_small, stats = self.run_in(prefix + 'small', flags, exe, launch)
            # The least budget that holds the plan, which the program names exactly.
            m = re.search(rb'give --memory (\d+)', err)
            if st == 2 and m and parse_size(mem) < 64 << 20 and int(m.group(1)) > parse_size(mem):
                mem = m.group(1).decode()
                continue
            # A budget the program accepted at start must hold to the end: one that stops
            # a merge mid-run (a sort writing more runs than planned) is counted apart and
            # compared at twice the budget.
            if st == 1 and re.search(rb'too small for a second merge pass|Give the sort more memory', err) \
                    and not doubled:
                doubled = True
                self.accepted_budget_failed = True
                self.note(f'{prefix}run with {" ".join(flags)} (accepted at start) failed: ' + err.decode(errors='replace')[-500:])
                mem = f'{parse_size(mem) * 2 // 1024}KiB'
                continue
            break
        if st != 0:
            self.note(f'{prefix}run with {" ".join(flags)}: status {st}\n' + err.decode(errors='replace')[-3000:])
            return None
        return (out_big, wd_big, stats_big, ' '.join(['--memory', self.args.big] + extra)), (out_small, wd_small, stats, ' '.join(flags))

    @staticmethod
    def differences(a, b, la, lb):
        """What differs between two runs (stdout, work dir, …): a list of sentences."""
        diffs = []
        if a[0] != b[0]:
            diffs.append('stdout differs')
        cmp = filecmp.dircmp(a[1], b[1])
        diffs += [f'only in the {la} run: {f}' for f in cmp.left_only]
        diffs += [f'only in the {lb} run: {f}' for f in cmp.right_only]
        for f in cmp.common_files:
            if not filecmp.cmp(os.path.join(a[1], f), os.path.join(b[1], f), shallow=False):
                diffs.append(f'{f} differs')
        return diffs

    def go(self):
        if not self.build(self.script, self.exe):
            self.result = 'build'
            return self
        runs = self.run_budgets(self.exe)
        if runs is None:
            self.result = 'run'
            return self
        big, small = runs
        diffs = self.differences(big, small, self.args.big, 'small')
        if diffs:
            self.note(f'--memory {self.args.big} against {small[3]}: ' + '; '.join(diffs))
            self.result = 'diff'
            return self
        if not self.same_at_every_thread_count(big):
            self.result = 'threads'
            return self
        if not self.same_at_every_rank_count(big):
            self.result = 'ranks'
            return self
        self.result = 'ok'
        with open(self.script, encoding='utf-8') as f:
            text = f.read()
        if has_sort(text):
            try:
                # Spills only: not the files the program writes in its directory or
                # standard output, which --stats counts too.
                outputs = set(os.listdir(small[1])) | {'standard output'}
                written = sum(d['write_bytes'] for d in json.load(open(small[2]))['disks']
                              if d['path'] not in outputs and os.path.basename(d['path']) not in outputs)
            except (OSError, ValueError, KeyError) as e:
                written = 0
                self.note(f'no stats: {e}')
            if written == 0:
                self.note(f'the run with {small[3]} wrote nothing to disk')
                self.result = 'memory'
        if self.args.functions:
            self.go_functions(big)
        return self

    def same_at_every_thread_count(self, big):
        """Both budgets at each --threads of the list (the small one found again: a merge
        needs a little more memory per thread), each run the same as `big`."""
        for t in self.args.threads:
            runs = self.run_budgets(self.exe, f't{t}', ['--threads', str(t)])
            if runs is None:
                return False
            for r in runs:
                d = self.differences(big, r, f'--memory {self.args.big}', r[3])
                if d:
                    self.note(f'--memory {self.args.big} against {r[3]}: ' + '; '.join(d))
                    return False
        return True

    def same_at_every_rank_count(self, big):
        """--ranks: the script built with --mpi, both budgets as each count of ranks of
        mpirun (the small one found again), each run the same as `big`."""
        if not self.args.ranks:
            return True
        exe = self.exe + '-mpi'
        if not self.build(self.script, exe, 'flowc build --mpi', ['--mpi']):
            return False
        # A session folder of its own: two mpiruns starting at once race for a shared one
        # (test/e2e/Inputs/distributed/mpirun.py).
        session = os.path.join(self.dir, 'ompi')
        os.makedirs(session, exist_ok=True)
        mpirun = ['mpirun', '--oversubscribe', '--mca', 'orte_tmpdir_base', session] + \
            (['--allow-run-as-root'] if os.geteuid() == 0 else [])
        for p in self.args.ranks:
            runs = self.run_budgets(exe, f'r{p}', [], mpirun + ['-np', str(p)])
            if runs is None:
                return False
            for r in runs:
                d = self.differences(big, r, f'--memory {self.args.big}', f'{p} ranks with {r[3]}')
                if d:
                    self.note(f'--memory {self.args.big} against {p} ranks with {r[3]}: ' + '; '.join(d))
                    return False
        return True

    def go_functions(self, plain_big):
        """The function version: built, run at both budgets, each run the same as the plain
        script's run with the big budget."""
        if not self.build(self.fn_script, self.fn_exe, 'flowc build (function version)'):
            self.result = 'fnbuild'
            return
        runs = self.run_budgets(self.fn_exe, 'fn')
        if runs is None:
            self.result = 'fnrun'
            return
        diffs = []
        for label, r in zip(('big', 'small'), runs):
            d = self.differences(plain_big, r, 'plain', f'function version ({r[3]})')
            if d:
                diffs.append(f'plain script (--memory {self.args.big}) against the function version with {r[3]}: '
                             + '; '.join(d))
        if diffs:
            self.note('\n'.join(diffs))
            self.result = 'fndiff'


def parse_size(s):
    m = re.fullmatch(r'(\d+)\s*(B|KiB|MiB|GiB)?', s)
    return int(m.group(1)) * {None: 1, 'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30}[m.group(2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument('--flowc', default=os.path.join(HERE, '..', '..', '..', 'build', 'compiler', 'flowc'))
    ap.add_argument('--count', type=int, default=150)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', required=True)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--opt', default='0', help='flowc build -OLEVEL (flowc rejects "-O 0")')
    ap.add_argument('--big', default='256MiB')
    ap.add_argument('--small-memory', default='16KiB')
    ap.add_argument('--small-block', default='', help='--block for the small run (default: the script\'s)')
    ap.add_argument('--build-timeout', type=float, default=300)
    ap.add_argument('--run-timeout', type=float, default=60)
    ap.add_argument('--avoid', default=None, help='comma-separated generator switches (gen_scripts.AVOIDABLE, '
                    'gen_functions.AVOIDABLE); default: the known open bugs (gen_scripts.KNOWN_BUGS, '
                    'gen_functions.KNOWN_BUGS: ' + ', '.join(gen_scripts.KNOWN_BUGS + gen_functions.KNOWN_BUGS) +
                    '); --avoid= generates them too')
    ap.add_argument('--threads', default='1,2,3,8',
                    help='comma-separated --threads values at which both budgets run again (empty: none)')
    ap.add_argument('--ranks', default='',
                    help='comma-separated numbers of ranks at which the script built with --mpi runs both budgets '
                         'again under mpirun (empty: none)')
    ap.add_argument('--pick', default='',
                    help='comma-separated numbers of the seed\'s scripts to run (genNNNNN), instead of the first --count')
    ap.add_argument('--functions', action='store_true',
                    help='also build and run each script written through functions (gen_functions.py): '
                         'its outputs must be those of the plain script')
    args = ap.parse_args()
    args.flowc = os.path.abspath(args.flowc)
    args.threads = [int(t) for t in args.threads.split(',') if t]
    args.ranks = [int(p) for p in args.ranks.split(',') if p]
    if args.avoid is None:
        avoid = set(gen_scripts.KNOWN_BUGS + gen_functions.KNOWN_BUGS)
    else:
        avoid = {a for a in args.avoid.split(',') if a}

    shutil.rmtree(os.path.join(args.out, 'work'), ignore_errors=True)
    picked = [int(k) for k in args.pick.split(',') if k]
    if picked:
        args.count = len(picked)
    jobs = []
    for k in picked or range(args.count):
        j = Job(args, k)
        os.makedirs(j.dir)
        seed = args.seed * 1_000_003 + k
        if args.functions:
            plain, main_text, modules = gen_functions.generate_pair(seed, avoid)
            write_files(j.fn_dir, {os.path.basename(j.fn_script): main_text, **modules})
        else:
            plain = gen_scripts.generate_script(seed, avoid)
        with open(j.script, 'w', encoding='utf-8') as f:
            f.write(plain)
        jobs.append(j)

    counts = {'build': 0, 'run': 0, 'diff': 0, 'threads': 0, 'ranks': 0, 'memory': 0, 'fnbuild': 0, 'fnrun': 0, 'fndiff': 0, 'ok': 0}
    fail_dir = os.path.join(args.out, 'fail')
    os.makedirs(fail_dir, exist_ok=True)
    accepted_budget_failures = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for j in pool.map(Job.go, jobs):
            counts[j.result] += 1
            if j.accepted_budget_failed:
                accepted_budget_failures += 1
                print(f'{j.name}: a budget accepted at start failed mid-run: {j.log[0].splitlines()[0]}', flush=True)
            if j.result != 'ok' or j.accepted_budget_failed:  # kept, to be looked into
                dest = os.path.join(fail_dir, j.name)
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(j.dir, dest, ignore=shutil.ignore_patterns(j.name))  # not the executables
                with open(os.path.join(dest, 'why.txt'), 'w', encoding='utf-8') as f:
                    f.write(f'{j.result}\n' + '\n'.join(j.log) + '\n')
                print(f'{j.name}: {j.result}: {j.log[-1].splitlines()[0] if j.log else ""}', flush=True)
            shutil.rmtree(j.dir, ignore_errors=True)
    built = args.count - counts['build']
    print(f'generated {args.count}, built {built}, build failures {counts["build"]}, '
          f'run failures {counts["run"]}, differences {counts["diff"]}, '
          f'differences between thread counts {counts["threads"]} (--threads {",".join(map(str, args.threads))}), '
          + (f'differences between rank counts {counts["ranks"]} (mpirun -np {",".join(map(str, args.ranks))}), '
             if args.ranks else '') +
          f'small-budget runs that stayed in memory {counts["memory"]}, ok {counts["ok"]}; '
          + (f'function versions: build failures {counts["fnbuild"]}, run failures {counts["fnrun"]}, '
             f'differences from the plain script {counts["fndiff"]}; ' if args.functions else '') +
          f'budgets accepted at start that failed mid-run {accepted_budget_failures}')
    print(f'failing scripts and logs: {fail_dir}')
    # A script's sort may be unused or tiny, so staying in memory is reported, not failed.
    sys.exit(1 if counts['build'] + counts['run'] + counts['diff'] + counts['threads'] + counts['ranks'] + counts['fnbuild'] + counts['fnrun']
             + counts['fndiff'] + accepted_budget_failures else 0)


def write_files(folder, files):
    """files ({path relative to folder: text}) written under folder."""
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)


if __name__ == '__main__':
    main()
