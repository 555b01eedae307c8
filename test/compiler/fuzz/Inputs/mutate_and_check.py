"""Fuzz-style robustness test of `flowc check` and `flowc emit`.

Makes mutants of the example scripts by deleting, duplicating, swapping, replacing and
inserting tokens and by cutting the file short, then checks them in batches. Every run
must end with status 0 (clean) or 1 (diagnostics): never a crash, a hang, an internal
error or a diagnostic without a position. The mutants that check accepts are emitted
too (at most --emit of them, two flowc at a time), with the same demands on emit. A
failing mutant is written out and named.

Usage: mutate_and_check.py FLOWC EXAMPLES_DIR WORK_DIR [--mutants N] [--seed S] [--emit N]
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\d[\w.]*|\w+|::|=>|<<=|>>=|[-+*/%&^<>=!|]=?|&&|\|\||\S',
                   re.S)
EXTRA = ['{', '}', '(', ')', '[', ']', ';', ',', '|', '.', '"', '/*', '~', '=>', 'for', 'in', 'emit',
         'record', 'stream', 'sort', 'by', 'as', '0x', '1e', '4 MB', "'", '@', '{x}', '"{', '\\']


def tokens_of(text):
    return [(m.start(), m.end()) for m in TOKEN.finditer(text)]


def mutate(text, rng):
    spans = tokens_of(text)
    if not spans:
        return text
    pieces = [text[s:e] for s, e in spans]
    gaps = [text[:spans[0][0]]] + [text[spans[i][1]:spans[i + 1][0]] for i in range(len(spans) - 1)] + \
           [text[spans[-1][1]:]]
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        i = rng.randrange(len(pieces))
        op = rng.choice(['delete', 'duplicate', 'swap', 'swap_far', 'replace', 'insert', 'truncate'])
        if op == 'delete':
            pieces[i] = ''
        elif op == 'duplicate':
            pieces[i] = pieces[i] + ' ' + pieces[i]
        elif op == 'swap' and i + 1 < len(pieces):
            pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
        elif op == 'swap_far':
            j = rng.randrange(len(pieces))
            pieces[i], pieces[j] = pieces[j], pieces[i]
        elif op == 'replace':
            pieces[i] = rng.choice(pieces + EXTRA)
        elif op == 'insert':
            pieces[i] = pieces[i] + ' ' + rng.choice(pieces + EXTRA)
        elif op == 'truncate':
            pieces = pieces[:i]
            gaps = gaps[:i + 1]
            break
    out = gaps[0]
    for k, p in enumerate(pieces):
        out += p + (gaps[k + 1] if k + 1 < len(gaps) else '')
    return out


def run(flowc, files, timeout):
    return subprocess.run([flowc, 'check', *files], capture_output=True, text=True, timeout=timeout)


def emit_problem(flowc, path, timeout=20):
    """Why `flowc emit` of a mutant that check accepted fails, or None."""
    try:
        r = subprocess.run([flowc, 'emit', path, '-o', os.devnull], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'emit: hang (over %d s)' % timeout
    why = bad_result(r)
    return 'emit: ' + why if why else None


def bad_result(result):
    if result.returncode not in (0, 1):
        return f'exit status {result.returncode}'
    if 'internal error' in result.stderr:
        return 'internal error'
    for line in result.stderr.splitlines():
        if ': error: ' in line and not re.match(r'.*\.flow:\d+:\d+: error: ', line) and 'cannot open' not in line:
            return 'diagnostic without a position: ' + line
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('flowc')
    ap.add_argument('examples')
    ap.add_argument('work')
    ap.add_argument('--mutants', type=int, default=3000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--batch', type=int, default=250)
    ap.add_argument('--emit', type=int, default=300, help='emit at most this many mutants that pass check')
    args = ap.parse_args()

    rng = random.Random(args.seed)
    sources = [open(p).read() for p in sorted(glob.glob(os.path.join(args.examples, '*.flow')))]
    os.makedirs(args.work, exist_ok=True)
    paths = []
    for n in range(args.mutants):
        path = os.path.join(args.work, f'mutant{n:05d}.flow')
        with open(path, 'w') as f:
            f.write(mutate(rng.choice(sources), rng))
        paths.append(path)

    failures = []
    clean = 0
    for b in range(0, len(paths), args.batch):
        batch = paths[b:b + args.batch]
        try:
            problem = bad_result(run(args.flowc, batch, timeout=120))
        except subprocess.TimeoutExpired:
            problem = 'timeout'
        if problem is None:
            continue
        for path in batch:  # find which mutant it was
            try:
                why = bad_result(run(args.flowc, [path], timeout=10))
            except subprocess.TimeoutExpired:
                why = 'hang (over 10 s)'
            if why:
                failures.append((path, why))
    # Emit the mutants that check accepts.
    failed = {f for f, _ in failures}
    clean_paths = []
    for b in range(0, len(paths), args.batch):
        if len(clean_paths) >= args.emit:
            break
        for path in paths[b:b + args.batch]:
            if path in failed or len(clean_paths) >= args.emit:
                continue
            try:
                if run(args.flowc, [path], timeout=10).returncode == 0:
                    clean_paths.append(path)
            except subprocess.TimeoutExpired:
                pass
    with ThreadPoolExecutor(max_workers=2) as pool:
        for path, why in zip(clean_paths, pool.map(lambda p: emit_problem(args.flowc, p), clean_paths)):
            if why:
                failures.append((path, why))
    for path in paths:
        if os.path.exists(path) and not any(path == f for f, _ in failures):
            os.remove(path)
    for path, why in failures:
        print(f'FAIL {path}: {why}')
    print(f'{len(paths)} mutants checked ({len(clean_paths)} clean ones emitted), {len(failures)} failures')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
