#!/usr/bin/env bash
# Sets everything up, builds flowc, and checks the example scripts: a summary of each, then
# the syntax tree of the maximal-independent-set example.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja > /dev/null
cmake --build build --target flowc
echo
build/compiler/flowc --version
build/compiler/flowc check --summary examples/*.flow
echo
build/compiler/flowc check --dump-ast examples/mis.flow
