#!/usr/bin/env bash
# Sets everything up, builds flowc, shows the plan of the maximal-independent-set example
# (examples/mis.flow), then builds and runs it on its default data (2^20 random edges)
# and prints its result and its I/O report: measured next to the compile-time estimate.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja > /dev/null
cmake --build build --target flowc
flowc=build/compiler/flowc
echo
echo "== flowc explain examples/mis.flow"
$flowc explain examples/mis.flow
echo
echo "== flowc run examples/mis.flow -- --stats"
cd "$(mktemp -d)"
"$OLDPWD/$flowc" run "$OLDPWD/examples/mis.flow" -- --stats
echo "(mis.bin written to $PWD)"
