"""Checks editors/vim/syntax/flow.vim with Vim itself, headless.

usage: vim_syntax_test.py VIM RUNTIMEDIR FILE...

Each FILE is a .flow sample annotated as vscode-tmgrammar-test's files are: a line
`//   ^^^ flowStage` asserts that the characters above the carets (in the nearest line
above that is not an assertion) are in the syntax group flowStage (the innermost group,
synIDattr(synID(line, col, 1), "name")); `// <--- flowStorage` asserts the first
characters of that line; `^^ - flowStage` asserts they are in any other group. Vim runs
once, in Ex mode without a vimrc, with RUNTIMEDIR first on 'runtimepath' so that its
ftdetect picks the filetype, and writes the groups it finds to a file compared here.
Prints `N passed, N failed` and exits 1 on any failure."""
import os
import re
import subprocess
import sys
import tempfile

ASSERT = re.compile(r"^//(?:(\s*)(\^+)|\s*<(-+))\s+(-\s+)?(\S+)\s*$")


def parse(path):
    checks = []  # (line, col, group, negated, source text)
    src_line = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, text in enumerate(lines, 1):
        m = ASSERT.match(text)
        if not m:
            src_line = number
            continue
        spaces, carets, dashes, negated, group = m.groups()
        if carets:
            first = 2 + len(spaces)
            cols = range(first, first + len(carets))
        else:
            cols = range(0, len(dashes))
        for c in cols:
            checks.append((src_line, c + 1, group, bool(negated), lines[src_line - 1]))
    return checks


def main():
    vim, runtime, files = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "groups.txt")
        script = [
            "set nocompatible",
            "let &runtimepath = '%s,' . &runtimepath" % runtime,
            "filetype on",
            "syntax on",
            "let g:out = []",
        ]
        all_checks = []
        for path in files:
            checks = parse(path)
            all_checks.append((path, checks))
            script.append("edit %s" % os.path.abspath(path))
            script.append("call add(g:out, 'filetype ' . &filetype)")
            for line, col, _, _, _ in checks:
                script.append("call add(g:out, synIDattr(synID(%d, %d, 1), 'name'))" % (line, col))
        script += ["call writefile(g:out, '%s')" % out, "qall!"]
        vimscript = os.path.join(tmp, "check.vim")
        with open(vimscript, "w") as f:
            f.write("\n".join(script) + "\n")
        subprocess.run([vim, "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", vimscript],
                       stdin=subprocess.DEVNULL, timeout=60, check=False)
        if not os.path.exists(out):
            print("error: %s wrote no result" % vim)
            return 1
        with open(out, encoding="utf-8") as f:
            got = f.read().split("\n")
    passed = failed = 0
    i = 0
    for path, checks in all_checks:
        if got[i] != "filetype flow":
            print("%s: FAIL: %s (ftdetect/flow.vim did not apply)" % (path, got[i]))
            failed += 1
        i += 1
        for line, col, group, negated, text in checks:
            name = got[i]
            i += 1
            ok = (name != group) if negated else (name == group)
            if ok:
                passed += 1
            else:
                failed += 1
                print("%s:%d:%d: FAIL: expected %s%s, found %r" % (path, line, col, "not " if negated else "", group, name))
                print("  " + text)
                print("  " + " " * (col - 1) + "^")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
