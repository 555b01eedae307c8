#!/bin/sh
# A stand-in C++ compiler for tests: writes its arguments, one a line, to OUT.args and
# makes OUT (the word after -o) a script that prints "ran" and its own arguments (and, as
# every program flowc builds, holds the words "built by flowc ", so flowc may replace it).
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = "-o" ] && out="$arg"
  prev="$arg"
done
printf '%s\n' "$@" > "$out.args"
printf '#!/bin/sh\n# built by flowc (a stand-in)\necho ran "$@"\n' > "$out"
chmod +x "$out"
