#!/usr/bin/env bash
# Sets everything up, builds Flow and runs every test (lit suites and GoogleTest, via ctest).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DFLOW_WERROR=ON
cmake --build build
ctest --test-dir build --output-on-failure -j2
