"""Runs `flowc check` and `flowc emit` on generated scripts (gen_scripts.py).

Usage: check_and_emit.py FLOWC WORK_DIR [--count N] [--seed S] [--jobs 2] [--timeout 30] [--functions]

--functions: the scripts are the function versions of gen_functions.py (the same
computation written through functions and modules), each in a folder of its own
(WORK_DIR/genNNNNN-fn/genNNNNN.flow, with its modules beside it).

The generator promises valid scripts, so `flowc check` must accept every one (status 0).
`flowc emit` must end with status 0, or 1 with positioned diagnostics (a plan that does
not fit the memory budget is a script error), and so must `flowc emit --mpi` (the plan of
the ranks: docs/distributed.md) of every fourth script (the suite's time). A failure is: a crash (a signal), a hang
(over the timeout), exit status 3 (internal error) or any other status but 0 and 1, a
diagnostic line without FILE:LINE:COL, or a script that check rejects. Failing scripts
are kept in WORK_DIR, with flowc's stderr next to them (.check.err, .emit.err); the
others are removed. Scripts are checked in batches (one flowc per batch, a batch that
fails is checked again script by script) and emitted one by one, JOBS flowc at a time.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_functions  # noqa: E402
import gen_scripts  # noqa: E402

POSITIONED = re.compile(r'^.*\.flow:\d+:\d+: (error|warning|note): ')


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(cmd, timeout):
    """(status, stderr); status is 'timeout' or a negative number for a signal."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors='replace', timeout=timeout,
                           preexec_fn=no_core)
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors='replace') if isinstance(e.stderr, bytes) else (e.stderr or '')
        return 'timeout', err


def problem(status, stderr, must_pass):
    """Why this flowc run is a failure, or None."""
    if status == 'timeout':
        return 'hang (timeout)'
    if status < 0:
        return f'crash (signal {-status})'
    if status == 3 or 'internal error' in stderr:
        first = next((l for l in stderr.splitlines() if 'internal error' in l), '')
        return f'internal error (status {status}): {first[:300]}'
    if status not in (0, 1):
        return f'exit status {status}'
    for line in stderr.splitlines():
        if (': error: ' in line or ': warning: ' in line) and not POSITIONED.match(line):
            return 'diagnostic without a position: ' + line[:300]
    if must_pass and status != 0:
        first = next((l for l in stderr.splitlines() if ': error: ' in l), stderr[:300])
        return 'check rejects a generated script: ' + first[:300]
    return None


def check_batch(flowc, batch, timeout):
    status, err = run([flowc, 'check', *batch], timeout)
    if problem(status, err, True) is None:
        return []
    out = []
    for path in batch:
        status, err = run([flowc, 'check', path], timeout)
        why = problem(status, err, True)
        if why:
            with open(path + '.check.err', 'w', encoding='utf-8', errors='replace') as f:
                f.write(err)
            out.append((path, 'check: ' + why))
    return out


def emit_one(flowc, path, timeout, mpi):
    for switches in ([], ['--mpi']) if mpi else ([],):
        status, err = run([flowc, 'emit', *switches, path, '-o', os.devnull], timeout)
        why = problem(status, err, False)
        if why:
            with open(path + '.emit.err', 'w', encoding='utf-8', errors='replace') as f:
                f.write(err)
            return [(path, ' '.join(['emit'] + switches) + ': ' + why)]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('flowc')
    ap.add_argument('work')
    ap.add_argument('--count', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--timeout', type=float, default=30)
    ap.add_argument('--batch', type=int, default=100)
    ap.add_argument('--keep', action='store_true', help='keep every script, not only failing ones')
    ap.add_argument('--functions', action='store_true', help='the function versions (gen_functions.py)')
    args = ap.parse_args()

    os.makedirs(args.work, exist_ok=True)
    paths = []
    for k in range(args.count):
        seed = args.seed * 1_000_003 + k
        if args.functions:
            folder = os.path.join(args.work, f'gen{k:05d}-fn')
            path = os.path.join(folder, f'gen{k:05d}.flow')
            _, main_text, modules = gen_functions.generate_pair(seed)
            for rel, text in {os.path.basename(path): main_text, **modules}.items():
                os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
                with open(os.path.join(folder, rel), 'w', encoding='utf-8') as f:
                    f.write(text)
        else:
            path = os.path.join(args.work, f'gen{k:05d}.flow')
            with open(path, 'w', encoding='utf-8') as f:
                f.write(gen_scripts.generate_script(seed))
        paths.append(path)

    failures = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        batches = [paths[b:b + args.batch] for b in range(0, len(paths), args.batch)]
        for res in pool.map(lambda b: check_batch(args.flowc, b, args.timeout * 4), batches):
            failures += res
        rejected = {p for p, _ in failures}
        for res in pool.map(lambda kp: emit_one(args.flowc, kp[1], args.timeout, kp[0] % 4 == 0),
                            [(k, p) for k, p in enumerate(paths) if p not in rejected]):
            failures += res
    failing = {p for p, _ in failures}
    if not args.keep:
        for path in paths:
            if path not in failing:
                if args.functions:
                    shutil.rmtree(os.path.dirname(path))
                else:
                    os.remove(path)
    for path, why in sorted(failures):
        print(f'FAIL {path}: {why}')
    what = 'function versions' if args.functions else 'scripts'
    print(f'{len(paths)} {what} checked and emitted, {len(failing)} failures')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
