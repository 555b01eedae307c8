#!/usr/bin/env python3
"""Writes a script that nests one construct DEPTH times (to stdout).

  deep.py SHAPE DEPTH

SHAPE: parens  let x = ((((1))));
       blocks  { { { } } }
       plus    let x = 1 + 1 + ... + 1;        (DEPTH operators)
       unary   let x = - - - 1;
       elseif  if … { } else if … { } …       (DEPTH `else if`)
       ifs     if x == 0 { if x == 0 { … } }    (DEPTH nested `if` statements)
       array   let a = [[[1]]];
       record  R1 { a: R0 { a: … } }            (DEPTH records, each holding the last)
       calls   let x = min(min(min(1, 1), 1), 1);
       flat    let a = [1, 1, …, 1];           (DEPTH elements, one level)
"""
import sys

shape, depth = sys.argv[1], int(sys.argv[2])
out = []
if shape == "parens":
    out.append("let x = " + "(" * depth + "1" + ")" * depth + ";")
elif shape == "blocks":
    out.append("{ " * depth + "}" * depth)
elif shape == "plus":
    out.append("let x = 1" + " + 1" * depth + ";")
elif shape == "unary":
    out.append("let x = " + "- " * depth + "1;")
elif shape == "elseif":
    out.append("var x = 0;")
    out.append("if x == 0 { x = 1; }" + "".join(" else if x == %d { x = %d; }" % (i, i + 1) for i in range(1, depth + 1)))
elif shape == "ifs":
    out.append("var x: u64 = 0;")
    out.append("if x == 0 { " * depth + "x += 1;" + " }" * depth)
elif shape == "array":
    out.append("let a = " + "[" * depth + "1" + "]" * depth + ";")
elif shape == "record":
    out.append("record R0 { a: i64 }")
    for i in range(1, depth + 1):
        out.append("record R%d { a: R%d }" % (i, i - 1))
    init = "1"
    for i in range(depth + 1):
        init = "R%d { a: %s }" % (i, init)
    out.append("let r = " + init + ";")
elif shape == "calls":
    out.append("let x = " + "min(" * depth + "1" + ", 1)" * depth + ";")
elif shape == "flat":
    out.append("let a = [" + ", ".join(["1"] * depth) + "];")
else:
    sys.exit("unknown shape " + shape)
sys.stdout.write("\n".join(out) + "\n")
