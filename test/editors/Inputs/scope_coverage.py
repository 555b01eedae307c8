"""Every scope that editors/textmate/flow.tmLanguage.json gives is asserted by some test.

usage: scope_coverage.py GRAMMAR TESTDIR

Collects the scope names of the grammar (`name` and `contentName`, split at spaces) and
the scopes required by the `^^^ scope` and `<--- scope` lines of TESTDIR/*.flow (before a
` - `), and lists the grammar's scopes that no test requires."""
import glob
import json
import os
import re
import sys


def grammar_scopes(node, found):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("name", "contentName") and isinstance(value, str):
                found.update(value.split())
            else:
                grammar_scopes(value, found)
    elif isinstance(node, list):
        for value in node:
            grammar_scopes(value, found)
    return found


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        grammar = json.load(f)
    defined = grammar_scopes(grammar.get("patterns", []), set())
    grammar_scopes(grammar.get("repository", {}), defined)
    asserted = set()
    for path in glob.glob(os.path.join(sys.argv[2], "*.flow")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"//\s*(?:\^+|<-+)\s+(.*)$", line)
                if m:
                    required = m.group(1).split(" - ")[0] if not m.group(1).startswith("- ") else ""
                    asserted.update(required.split())
    missing = sorted(defined - asserted)
    for scope in missing:
        print("scope not asserted by any test: %s" % scope)
    print("%d scopes in the grammar, %d not asserted" % (len(defined), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
