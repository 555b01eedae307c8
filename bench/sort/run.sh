#!/usr/bin/env bash
# The sort benchmarks of issue 4, Flow beside STXXL 1.4.1 (Debian libstxxl-dev), built
# and run by this one script on O_DIRECT disk files in $FLOW_BENCH_DIR (default /var/tmp):
#   (a) generate 2^27 random 16-byte edges -> sort by (src, dst) -> unique -> count, 256 MiB
#   (b) the same with 2^26 edges
#   (c) 2 GiB of 100-byte records with random 10-byte keys -> sort -> scan, 256 MiB
# and, as the compute floor, one std::sort of the same records in memory (single thread).
# Each benchmark runs ROUNDS times (default 2), STXXL and Flow alternating; the table shows
# every round, then the medians. Not a test: it never fails on speed (it fails if a
# result is wrong).
#
# STXXL gets a syscall + O_DIRECT disk file via $STXXLCFG and runs in its parallel mode
# (OpenMP, -fopenmp, both cores) with OMP_WAIT_POLICY=passive: on a shared machine
# spinning OpenMP threads slow it down a lot. Its runs_creator and runs_merger get the
# same memory as Flow's sort node.
#
#   bench/sort/run.sh                 # all three, 2 rounds
#   bench/sort/run.sh b 1             # only (b), one round
#   FLOW_BENCH_DIR=/scratch bench/sort/run.sh
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
which=${1:-abc}
rounds=${2:-2}
memory_mib=${FLOW_BENCH_MEMORY_MIB:-256}

bench_build build-bench-sort flow_sort_bench stxxl_sort_bench
flow_bin="$build/bench/sort/flow_sort_bench"
stxxl_bin="$build/bench/sort/stxxl_sort_bench"
bench_dir flow-sort-bench

run() { # label command...
  local label=$1
  shift
  echo "  [$label] $* (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  (cd "$dir" && "$@" 2>/dev/null) | grep '^RESULT' | sed "s/^RESULT /RESULT case=$label round=$round /" | tee -a "$results" >&2
}

declare -A args=([a]="edges 27" [b]="edges 26" [c]="rec100 2048")
declare -A floor=([a]="floor-edges 27" [b]="floor-edges 26" [c]="floor-rec100 2048")
for round in $(seq 1 "$rounds"); do
  echo "round $round" >&2
  for c in a b c; do
    case "$which" in *$c*) ;; *) continue ;; esac
    run "$c" "$stxxl_bin" ${args[$c]} "$memory_mib"
    run "$c" "$flow_bin" ${args[$c]} "$memory_mib" "$dir"
  done
done
round=1
for c in a b c; do
  case "$which" in *$c*) run "$c" "$flow_bin" ${floor[$c]} ;; esac
done

python3 - "$results" <<'PY'
import sys
rows, floors = {}, {}
for line in open(sys.argv[1]):
    f = dict(kv.split('=', 1) for kv in line.split()[1:])
    if f['lib'] == 'std::sort':
        floors[f['case']] = f
    else:
        rows.setdefault((f['case'], f['round']), {})[f['lib']] = f
names = {'a': '(a) 2^27 edges, sort+unique+count', 'b': '(b) 2^26 edges, sort+unique+count',
         'c': '(c) 2 GiB 100-byte records, sort+scan'}
def mib(r): return (int(r['read_bytes']) + int(r['write_bytes'])) / 2**20
print("| benchmark | round | STXXL s | Flow s | Flow/STXXL | STXXL I/O MiB (r+w) | Flow I/O MiB (r+w) | STXXL I/O wait s | Flow I/O wait s | Flow run formation s / merge s | std::sort floor s | results agree |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
bad = False
for (c, rnd), r in sorted(rows.items()):
    s, f = r.get('stxxl'), r.get('flow')
    if not s or not f: continue
    agree = s['ok'] == '1' and f['ok'] == '1' and s['count'] == f['count'] and s['checksum'] == f['checksum']
    bad |= not agree
    fl = floors.get(c)
    print(f"| {names[c]} | {rnd} | {float(s['seconds']):.2f} | {float(f['seconds']):.2f} | "
          f"{float(f['seconds'])/float(s['seconds']):.2f} | {mib(s):.1f} | {mib(f):.1f} | "
          f"{float(s['io_wait_s']):.2f} | {float(f['io_wait_s']):.2f} | "
          f"{float(f['formation_s']):.2f} / {float(f['merge_s']):.2f} | "
          f"{(fl['sort_s'] if fl else '-')} | {'yes' if agree else 'NO'} |")
import statistics
print()
print("| benchmark | rounds | median STXXL s | median Flow s | median Flow/STXXL | best / worst Flow/STXXL |")
print("|---|---|---|---|---|---|")
for c in sorted({c for c, _ in rows}):
    pairs = [(float(r['stxxl']['seconds']), float(r['flow']['seconds']))
             for (cc, _), r in rows.items() if cc == c and 'stxxl' in r and 'flow' in r]
    if not pairs: continue
    ratios = [f / s for s, f in pairs]
    print(f"| {names[c]} | {len(pairs)} | {statistics.median(s for s, _ in pairs):.2f} | "
          f"{statistics.median(f for _, f in pairs):.2f} | {statistics.median(ratios):.2f} | "
          f"{min(ratios):.2f} / {max(ratios):.2f} |")
sys.exit(1 if bad else 0)
PY
