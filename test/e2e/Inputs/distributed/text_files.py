#!/usr/bin/env python3
"""Writes the text inputs of distributed_text.test into the current folder: lines of
0 to 250 bytes, blank lines, CRLF endings and no newline at the end; a 3-byte file; one line without a newline; an
empty file; numbers (one a line) whose sum Python prints; and numbers with a bad line
near the end."""
import random

random.seed(30)
lines = []
for i in range(20000):
    n = random.choice([0, 1, 5, 20, 80, 250]) if i % 97 else 0
    lines.append("".join(random.choice("abc xyz\t") for _ in range(n)) + ("\r" if i % 13 == 0 else ""))
open("lines.txt", "w", newline="").write("\n".join(lines))  # no newline after the last
open("tiny.txt", "w").write("a\nb")
open("one.txt", "w").write("x" * 200)
open("empty.txt", "w").write("")
numbers = [random.randrange(10**12) for _ in range(30000)]
open("numbers.txt", "w").write("".join(f"{x}\n" for x in numbers))
bad = [str(x) for x in numbers]
bad[28123] = "12x"
open("bad.txt", "w").write("\n".join(bad) + "\n")
print(f"the numbers' sum {sum(numbers)}")
