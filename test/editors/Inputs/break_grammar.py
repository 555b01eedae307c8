"""Writes a copy of the Flow TextMate grammar with one deliberate mistake, so that the
tests can show that editors/textmate/tests catch it.

usage: break_grammar.py GRAMMAR MISTAKE OUT

MISTAKE is one of:
  keyword-fields   drop the rule that makes `to:` in a record literal a field, not a keyword
  no-estimates     drop the rule that tells an estimate `~` from a bitwise not
  no-interpolation strings without `{expr}` interpolation
  slash-comment    a single `/` starts a line comment (a division would read as a comment)"""
import json
import sys


def main():
    grammar_path, mistake, out = sys.argv[1:]
    with open(grammar_path, encoding="utf-8") as f:
        grammar = json.load(f)
    repo = grammar["repository"]
    if mistake == "keyword-fields":
        repo["expression"]["patterns"].remove({"include": "#field-name"})
    elif mistake == "no-estimates":
        ops = repo["operators"]["patterns"]
        ops[:] = [p for p in ops if "estimate" not in json.dumps(p)]
    elif mistake == "no-interpolation":
        string = repo["strings"]["patterns"][0]
        string["patterns"] = [p for p in string["patterns"] if p.get("name") != "meta.interpolation.flow"]
    elif mistake == "slash-comment":
        for p in repo["comments"]["patterns"]:
            if p["name"].startswith("comment.line"):
                p["begin"] = "/"
    else:
        sys.exit("unknown mistake: " + mistake)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(grammar, f, indent=2)


if __name__ == "__main__":
    main()
