"""A structural check of DOT on stdin: one digraph, balanced braces and quotes, every
edge between declared nodes (Graphviz itself is not needed)."""
import re
import sys

text = sys.stdin.read()
assert text.startswith("digraph flow {"), "not a digraph"
depth = 0
in_string = False
prev = ""
for ch in text:
    if ch == '"' and prev != "\\":
        in_string = not in_string
    elif not in_string:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "unbalanced braces"
    prev = ch
assert depth == 0 and not in_string, "unbalanced braces or quotes"
declared = set(re.findall(r"^\s*(\w+) \[", text, re.M))
edges = re.findall(r"^\s*(\w+) -> (\w+)(?: \[[^\n]*\])?;$", text, re.M)
assert edges, "no edges"
for a, b in edges:
    assert a in declared and b in declared, f"edge {a} -> {b} to an undeclared node"
print("dot ok")
