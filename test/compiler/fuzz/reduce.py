#!/usr/bin/env python3
"""Shrinks a failing Flow script while it keeps failing the same way.

    test/compiler/fuzz/reduce.py --flowc build/compiler/flowc SCRIPT \\
        --when 'emit:signal' [--out SMALL.flow]

--when is COMMAND:WHAT, COMMAND one of check, emit, build, WHAT one of signal (a crash),
timeout, status=N, or stderr=TEXT (the text in its stderr). Unless COMMAND is check,
the reduced script must also pass `flowc check`. Removes lines (largest chunks first),
then balanced {...} / (...) groups and `| stage`s within lines, greedily. Not part of the
test suite; used to make the minimal reproducers of /work/fuzz-findings.md.
"""
import argparse
import os
import re
import resource
import subprocess
import tempfile


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors='replace', timeout=timeout,
                           preexec_fn=no_core)
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', ''


class Tester:
    def __init__(self, flowc, when, timeout):
        self.flowc = flowc
        self.cmd, self.what = when.split(':', 1)
        self.timeout = timeout
        self.dir = tempfile.mkdtemp(prefix='reduce')
        self.path = os.path.join(self.dir, 'r.flow')

    def fails(self, text):
        with open(self.path, 'w') as f:
            f.write(text)
        if self.cmd != 'check':
            st, _ = run([self.flowc, 'check', self.path], self.timeout)
            if st != 0:
                return False
        args = {'check': ['check', self.path], 'emit': ['emit', self.path, '-o', os.devnull],
                'build': ['build', '-O', '0', self.path, '-o', os.path.join(self.dir, 'exe')]}[self.cmd]
        st, err = run([self.flowc, *args], self.timeout)
        if self.what == 'signal':
            return st != 'timeout' and st < 0
        if self.what == 'timeout':
            return st == 'timeout'
        if self.what.startswith('status='):
            return st == int(self.what[7:])
        if self.what.startswith('stderr='):
            return self.what[7:] in err
        raise SystemExit(f'unknown --when {self.what}')


def reduce_lines(lines, t):
    n = max(1, len(lines) // 2)
    while n >= 1:
        i = 0
        while i < len(lines):
            cand = lines[:i] + lines[i + n:]
            if cand and t.fails('\n'.join(cand) + '\n'):
                lines = cand
            else:
                i += n
        n //= 2
    return lines


def groups(line):
    """Spans of balanced (...) / {...} / [...] groups and of '| stage' pieces."""
    spans = []
    stack = []
    for i, c in enumerate(line):
        if c in '({[':
            stack.append(i)
        elif c in ')}]' and stack:
            spans.append((stack.pop(), i + 1))
    for m in re.finditer(r'\|[^|;]*', line):
        spans.append((m.start(), m.end()))
    return sorted(spans, key=lambda s: s[0] - s[1])


def reduce_inside(lines, t):
    changed = True
    while changed:
        changed = False
        for li in range(len(lines)):
            for a, b in groups(lines[li]):
                line = lines[li]
                if b > len(line):
                    continue
                inner = line[a:b]
                options = ['']
                if inner[0] == '(':
                    options = ['', '(0)', '(1)', inner[1:-1]]
                elif inner[0] == '{':
                    options = ['{ }', '{}']
                for rep in options:
                    cand = lines[:li] + [line[:a] + rep + line[b:]] + lines[li + 1:]
                    if rep != inner and t.fails('\n'.join(cand) + '\n'):
                        lines = cand
                        changed = True
                        break
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--flowc', required=True)
    ap.add_argument('script')
    ap.add_argument('--when', required=True)
    ap.add_argument('--out')
    ap.add_argument('--timeout', type=float, default=10)
    args = ap.parse_args()
    t = Tester(args.flowc, args.when, args.timeout)
    lines = open(args.script).read().splitlines()
    if not t.fails('\n'.join(lines) + '\n'):
        raise SystemExit('the script does not fail that way')
    lines = reduce_lines(lines, t)
    lines = reduce_inside(lines, t)
    lines = reduce_lines(lines, t)
    text = '\n'.join(lines) + '\n'
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text)
    print(text, end='')


if __name__ == '__main__':
    main()
