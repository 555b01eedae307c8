#!/usr/bin/env bash
# Installs everything Flow needs on a fresh Debian 12 machine, idempotently.
# Run as root or as a user with sudo. Safe to run again: it only installs what is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi

# --- Debian packages -----------------------------------------------------------------
apt_packages=(
  build-essential cmake ninja-build pkg-config
  default-jre-headless maven
  libantlr4-runtime-dev
  libclang-cpp14-dev libclang-14-dev llvm-14-dev clang-14 llvm-14-tools
  libboost-thread-dev
  libgtest-dev
  libstxxl-dev            # only for bench/ comparisons, never linked into the product
  python3 python3-pip python3-venv git
  vim                     # test/editors/vim.test checks editors/vim's syntax file with it
  neovim                  # test/editors/lsp_neovim.test: flowc lsp with Neovim's own LSP client
  gdb                     # test/compiler/driver/debug_lines.test stops at a script line
  graphviz                # test/compiler/plan/formats.flow renders explain --format dot
  openmpi-bin libopenmpi-dev  # flowc build --mpi: programs that run as Open MPI ranks (mpirun)
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- ANTLR4 tool, version must equal the C++ runtime's (4.9) ----------------------------
antlr_version=4.9
antlr_dir="$here/third_party/antlr"
antlr_jar="$antlr_dir/antlr-$antlr_version-complete.jar"
if [ ! -s "$antlr_jar" ]; then
  echo "setup: fetching ANTLR $antlr_version tool jar from Maven Central"
  mkdir -p "$antlr_dir"
  mvn -q dependency:copy -Dartifact=org.antlr:antlr4:$antlr_version:jar:complete \
      -DoutputDirectory="$antlr_dir" -Dmdep.stripVersion=false
  mv -f "$antlr_dir/antlr4-$antlr_version-complete.jar" "$antlr_jar"
fi

# --- lit (FileCheck comes from llvm-14-tools) --------------------------------------------
# Installed for the python3 first on PATH, which CMake also picks. Debian's own Python
# refuses plain pip installs (PEP 668), hence the second try.
if ! python3 -c 'import lit' 2>/dev/null; then
  echo "setup: installing lit from PyPI"
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -q lit 2>/dev/null || python3 -m pip install -q --break-system-packages lit
fi

# --- networkx: the tests check the standard library's graph algorithms against it --------
if ! python3 -c 'import networkx' 2>/dev/null; then
  echo "setup: installing networkx from PyPI"
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -q networkx 2>/dev/null || python3 -m pip install -q --break-system-packages networkx
fi

# --- Node.js and the editor grammars' test tool (test/editors) ----------------------------
# Any node with npm will do (Debian's own, or one installed otherwise: then Debian's npm
# package is not added beside it). vscode-tmgrammar-test is installed into build-tools/
# (ignored by git), exactly as editors/tools/package-lock.json pins it, never globally;
# again only when that lock changed or the tool is missing.
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing Debian packages: nodejs npm"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
tools_dir="$here/build-tools"
if [ ! -x "$tools_dir/node_modules/.bin/vscode-tmgrammar-test" ] \
   || ! cmp -s "$here/editors/tools/package-lock.json" "$tools_dir/package-lock.json"; then
  echo "setup: installing vscode-tmgrammar-test from npm into build-tools/"
  mkdir -p "$tools_dir"
  cp "$here/editors/tools/package.json" "$here/editors/tools/package-lock.json" "$tools_dir/"
  (cd "$tools_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

# --- DuckDB and numpy for bench/run's group row (and its smoke test, ctest bench_quick) ----
# In a venv under build-tools/ (ignored by git), never into the system's Python.
bench_venv="$here/build-tools/bench-venv"
if ! "$bench_venv/bin/python" -c 'import duckdb, numpy' 2>/dev/null; then
  echo "setup: installing duckdb and numpy from PyPI into build-tools/bench-venv"
  python3 -m venv "$bench_venv"
  "$bench_venv/bin/pip" install -q --disable-pip-version-check duckdb numpy
fi

echo "setup: all dependencies present"
