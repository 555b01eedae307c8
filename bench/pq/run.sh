#!/usr/bin/env bash
# The priority queue benchmarks of the bulk-parallel paper, Flow's queue beside STXXL
# 1.4.1's (PRIORITY_QUEUE_GENERATOR, Debian libstxxl-dev), built and run by this one
# script: 8-byte items, 256 MiB budget, O_DIRECT disk files in $FLOW_BENCH_DIR
# (default /var/tmp), n = 2^LOG2_N items (default 27). Not a test: never fails on speed.
#
#   push-rand-pop   n random pushes, then n pops
#   push-asc-pop    n ascending pushes, then n pops
#   bulk-rewrite    ascending fill of n (not timed), then bulks of random size 0..640000
#                   popped and pushed again with higher keys until n were popped; Flow
#                   runs it twice: one-by-one (top/pop/push) and with the bulk interface
#
# STXXL gets the paper's split of the budget: 128 MiB for the queue, 64 MiB prefetch
# pool, 64 MiB write pool; its disk is a syscall+direct file via $STXXLCFG. Its parallel
# mode (OpenMP, always on in the Debian build) runs with OMP_WAIT_POLICY=passive: on a
# shared 2-core machine spinning OpenMP threads made STXXL about 3x slower.
#
#   bench/pq/run.sh            # 2^27 items, 2 rounds
#   bench/pq/run.sh 24 1       # 2^24 items, 1 round
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
log2=${1:-27}
rounds=${2:-2}

bench_build build-bench-pq flow_pq_bench stxxl_pq_bench
flow_bin="$build/bench/pq/flow_pq_bench"
stxxl_bin="$build/bench/pq/stxxl_pq_bench"
bench_dir flow-pq-bench

run() { # label command...
  echo "  $*" >&2
  (cd "$dir" && "$@" 2>/dev/null) | grep '^RESULT' | sed "s/^RESULT /RESULT round=$round /" | tee -a "$results" >&2
}

for round in $(seq 1 "$rounds"); do
  echo "round $round" >&2
  for bench in push-rand-pop push-asc-pop bulk-rewrite; do
    run "$stxxl_bin" "$bench" "$log2"
    run "$flow_bin" "$bench" "$log2" "$dir"
    if [ "$bench" = bulk-rewrite ]; then run "$flow_bin" bulk-rewrite-bulk "$log2" "$dir"; fi
  done
done

python3 - "$results" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = dict(kv.split('=', 1) for kv in line.split()[1:])
    rows.setdefault((f['bench'], f['round']), {})[f['lib'] + ('' if f['bench'] != 'bulk-rewrite-bulk' else '-bulk')] = f
def gib(r): return (int(r['read_bytes']) + int(r['write_bytes'])) / 2**30
print("| benchmark | round | n | STXXL s | Flow s | Flow/STXXL | STXXL I/O GiB (r+w) | Flow I/O GiB (r+w) | ok |")
print("|---|---|---|---|---|---|---|---|---|")
for (bench, rnd), r in sorted(rows.items()):
    if bench == 'bulk-rewrite-bulk':
        continue
    s, f = r.get('stxxl'), r.get('flow')
    if not s or not f: continue
    ok = s['ok'] == '1' and f['ok'] == '1'
    print(f"| {bench} (one-by-one) | {rnd} | 2^{int(f['n']).bit_length()-1} | {float(s['seconds']):.2f} | {float(f['seconds']):.2f} | "
          f"{float(f['seconds'])/float(s['seconds']):.2f} | {gib(s):.2f} | {gib(f):.2f} | {'yes' if ok else 'NO'} |")
    if bench == 'bulk-rewrite':
        b = rows.get(('bulk-rewrite-bulk', rnd), {}).get('flow-bulk')
        if b:
            print(f"| bulk-rewrite (Flow bulk interface) | {rnd} | 2^{int(b['n']).bit_length()-1} | {float(s['seconds']):.2f} | {float(b['seconds']):.2f} | "
                  f"{float(b['seconds'])/float(s['seconds']):.2f} | {gib(s):.2f} | {gib(b):.2f} | {'yes' if b['ok']=='1' else 'NO'} |")
            print(f"|   Flow bulk / Flow one-by-one | {rnd} | | | | {float(b['seconds'])/float(f['seconds']):.2f} | | | |")
PY
