# Sourced by the benchmark scripts that run Flow beside STXXL (bench/sort, bench/pq), so
# they build and set up STXXL's disk the same way.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# bench_build DEFAULT_DIR TARGET...: sets $build. The bench targets are not part of the
# default build, and Release matters for the timings, hence a build dir of their own
# unless FLOW_BUILD_DIR (absolute, or relative to the repository) names another.
bench_build() {
  build=${FLOW_BUILD_DIR:-$here/$1}
  shift
  case "$build" in /*) ;; *) build="$here/$build" ;; esac
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build" --target "$@" -j2 >/dev/null
}

# bench_dir NAME: sets $dir, a fresh directory in $FLOW_BENCH_DIR (default /var/tmp) for
# both libraries' disk files, removed on exit, and $results, an empty file in it. STXXL
# reads its disk from $STXXLCFG only: syscall + O_DIRECT like Flow's disks, so both pay
# for real I/O rather than the page cache.
bench_dir() {
  dir=$(mktemp -d "${FLOW_BENCH_DIR:-/var/tmp}/$1.XXXXXX")
  trap 'rm -rf "$dir"' EXIT INT TERM
  printf 'disk=%s/stxxl.disk,0,syscall direct=on unlink_on_open\n' "$dir" >"$dir/stxxl.cfg"
  export STXXLCFG="$dir/stxxl.cfg" STXXLLOGFILE=/dev/null STXXLERRLOGFILE=/dev/null
  # Spinning OpenMP threads slow STXXL down a lot on a shared machine.
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
  results="$dir/results.txt"
  : >"$results"
}
