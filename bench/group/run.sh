#!/usr/bin/env bash
# The grouping and joining benchmarks of Flow's v1 constructs (reduce, join, for … end),
# built and run by this one script on real files in $FLOW_BENCH_DIR (default /var/tmp),
# 256 MiB of memory for every program:
#   (a) count per key of 2^27 u64 keys with 2^20 distinct ({key: u64, count: u64} records):
#       `reduce` beside the same pipeline written as `sort` + a `for` stage that folds each
#       group, its `end` block flushing the last one (sort_fold.flow). reduce.flow is run as
#       the planner plans it (a hash table: 2^20 keys fit) and as reduce_combining.flow,
#       whose distinct-key estimate of 0.1 makes the planner pick the combining sort.
#       Time and bytes read + written (from each program's --stats=json), total and on the
#       temporary disk only (sort runs, spills), and the ratios reduce / sort+fold.
#   (b) the same group-by count: Flow's reduce beside DuckDB (GROUP BY key).
#   (c) 2^26 orders {cust: u32, amount: u64} joined with 2^24 customers {id: u32,
#       nation: u16} (in random id order), amounts summed per nation (25 nations): Flow's
#       join + reduce beside DuckDB (JOIN + GROUP BY).
# Each round runs the baseline and Flow alternately (ROUNDS, default 2), and prints the
# machine load (/proc/loadavg, 1 minute) with each run; the tables show every round, then
# the medians and Flow/baseline. Not a test: it never fails on speed, only when a result
# is wrong (every output is checked against answers computed by numpy while the data is
# generated). DuckDB running out of memory is reported as a result, not a failure.
#
# The data is generated once per run (group.py, numpy, raw little-endian records in the
# layout flowc gives the records). DuckDB (from PyPI, installed with numpy into a venv,
# build-bench-group/venv or $FLOW_BENCH_VENV, if missing) loads the same files into a
# database file in the bench directory BEFORE timing, in a process of its own; that load
# is not timed. The timed process opens the database with SET memory_limit='256MiB'
# (the same budget as Flow's 256 MiB), threads=2, temp_directory in the bench directory
# (the disk Flow's temporary files are on) and preserve_insertion_order=false, and times
# only the query to a numpy result. Flow's time is the program's own wall time (from
# --stats=json), from opening its input to the output file written. Flow reads its input
# with O_DIRECT; DuckDB reads its database through the page cache. DuckDB's I/O is the
# storage I/O of its process (/proc/self/io) during the query.
#
#   bench/group/run.sh                   # (a), (b), (c) at full size, 2 rounds
#   bench/group/run.sh c 1               # only (c), one round
#   bench/group/run.sh abc 1 small       # 2^22 keys (2^16 distinct), 2^21 orders, 2^19
#                                        # customers: a quick check of the script
#   FLOW_BENCH_DIR=/scratch bench/group/run.sh
#   FLOW_BUILD_DIR=build bench/group/run.sh   # flowc of an existing Release build
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
which=${1:-abc}
rounds=${2:-2}
size=${3:-full}
case "$size" in
  full) log_keys=27 log_distinct=20 log_orders=26 log_customers=24 ;;
  small) log_keys=22 log_distinct=16 log_orders=21 log_customers=19 ;;
  *) echo "size must be full or small, not '$size'" >&2; exit 2 ;;
esac
memory=256MiB
src="$here/bench/group"

bench_build build-bench-group flowc
flowc="$build/compiler/flowc"
venv=${FLOW_BENCH_VENV:-$here/build-bench-group/venv}
py="$venv/bin/python"
if ! "$py" -c 'import duckdb, numpy' 2>/dev/null; then
  echo "installing duckdb and numpy into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet duckdb numpy
fi
echo "DuckDB $("$py" -c 'import duckdb; print(duckdb.__version__)'), $($flowc --version | head -1)" >&2

# The Flow programs, and the strategy the planner chose for each reduce.
bin="$build/bench-group"
mkdir -p "$bin"
declare -A strategy
for prog in reduce reduce_combining sort_fold join_nations; do
  "$flowc" build "$src/$prog.flow" -o "$bin/$prog"
  notes=$("$flowc" explain "$src/$prog.flow" | grep 'note:' || true)
  case "$notes" in
    *combines*) strategy[$prog]=combining-sort ;;
    *"a hash table"*) strategy[$prog]=hash-table ;;
    *) strategy[$prog]=sort+fold ;;
  esac
done

bench_dir flow-group-bench
echo "generating data in $dir (load $(cut -d' ' -f1 /proc/loadavg))" >&2
case "$which" in *[ab]*) "$py" "$src/group.py" gen "$dir" keys "$log_keys" "$log_distinct" ;; esac
case "$which" in *c*) "$py" "$src/group.py" gen "$dir" join "$log_orders" "$log_customers" ;; esac
echo "loading DuckDB's tables (not timed)" >&2
case "$which" in *b*) "$py" "$src/group.py" duck-load "$dir" keys ;; esac
case "$which" in *c*) "$py" "$src/group.py" duck-load "$dir" join ;; esac

tag() { # case: prefixes a RESULT line with the case, the round and the load
  sed "s/^RESULT /RESULT case=$1 round=$round load=$(cut -d' ' -f1 /proc/loadavg) /" | tee -a "$results" >&2
}
run_flow() { # case prog what output
  local c=$1 prog=$2 what=$3 out=$4
  echo "  [$c] $prog --memory $memory --disk $dir (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  rm -f "$dir/$out" "$dir/stats.json"
  if ! (cd "$dir" && "$bin/$prog" --memory "$memory" --disk "$dir" --stats="json:$dir/stats.json" >/dev/null); then
    echo "RESULT lib=flow prog=$prog ok=0 seconds=0 read_bytes=0 write_bytes=0 scratch_bytes=0 groups=0 total=0 strategy=- error=exit-status" | tag "$c"
    return
  fi
  "$py" "$src/group.py" flow-result "$dir" "$what" "$dir/stats.json" "$out" "${strategy[$prog]}" |
    sed "s/^RESULT lib=flow /RESULT lib=flow prog=$prog /" | tag "$c"
}
run_duck() { # case what
  echo "  [$1] DuckDB $2 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  rm -rf "$dir/duck.tmp"
  "$py" "$src/group.py" duck-query "$dir" "$2" "$memory" | sed "s/^RESULT lib=duckdb /RESULT lib=duckdb prog=duckdb /" | tag "$1"
  rm -rf "$dir/duck.tmp"
}

for round in $(seq 1 "$rounds"); do
  echo "round $round" >&2
  case "$which" in *a*)
    run_flow keys sort_fold keys counts.bin
    run_flow keys reduce_combining keys counts.bin ;;
  esac
  # One reduce run serves (a) and (b): it runs between its two baselines.
  case "$which" in *[ab]*) run_flow keys reduce keys counts.bin ;; esac
  case "$which" in *b*) run_duck keys keys ;; esac
  case "$which" in *c*)
    run_duck join join
    run_flow join join_nations join nations.bin ;;
  esac
done

python3 - "$results" "$which" "$size" <<'PY'
import statistics, sys
path, which, size = sys.argv[1:]
runs = {}
for line in open(path):
    f = dict(kv.split('=', 1) for kv in line.split()[1:])
    runs.setdefault((f['case'], f['round']), {})[f['prog']] = f
bad = False
for r in runs.values():
    for f in r.values():
        if f['lib'] == 'flow' and f['ok'] != '1':
            bad = True
def s(f): return float(f['seconds'])
def mib(f): return (int(f['read_bytes']) + int(f['write_bytes'])) / 2**20
def scr(f): return int(f['scratch_bytes']) / 2**20
def ok(*fs): return 'yes' if all(f['ok'] == '1' for f in fs) else 'NO'
def ratio(a, b): return f"{a / b:.3f}" if b else '-'
def cell(f): return f"{s(f):.2f}" if f['ok'] == '1' or f['lib'] == 'flow' else f"{f.get('error', 'failed')}"
rounds = sorted({rnd for _, rnd in runs}, key=int)
sizes = {'full': ('2^27 keys, 2^20 distinct', '2^26 orders, 2^24 customers'),
         'small': ('2^22 keys, 2^16 distinct', '2^21 orders, 2^19 customers')}[size]
medians = []

if 'a' in which:
    print(f"(a) count per key, {sizes[0]}, 256 MiB: reduce vs sort + for-fold (both Flow)")
    print("| round | load | sort+fold s | reduce (hash table) s | reduce (combining sort) s | sort+fold I/O MiB (r+w) | reduce hash I/O MiB | reduce combining I/O MiB | scratch I/O MiB sort+fold / hash / combining | time hash/sort+fold | time combining/sort+fold | I/O hash/sort+fold | I/O combining/sort+fold | results agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for rnd in rounds:
        r = runs.get(('keys', rnd), {})
        b, h, c = r.get('sort_fold'), r.get('reduce'), r.get('reduce_combining')
        if not (b and h and c): continue
        rows.append((b, h, c))
        print(f"| {rnd} | {b['load']}/{h['load']}/{c['load']} | {s(b):.2f} | {s(h):.2f} | {s(c):.2f} | {mib(b):.0f} | {mib(h):.0f} | {mib(c):.0f} | "
              f"{scr(b):.0f} / {scr(h):.0f} / {scr(c):.0f} | {ratio(s(h), s(b))} | {ratio(s(c), s(b))} | "
              f"{ratio(mib(h), mib(b))} | {ratio(mib(c), mib(b))} | {ok(b, h, c)} |")
    if rows:
        med = lambda xs: statistics.median(xs)
        medians.append(("(a) reduce, hash table / sort+fold", med([s(b) for b, _, _ in rows]), med([s(h) for _, h, _ in rows]),
                        med([s(h) / s(b) for b, h, _ in rows]), med([mib(h) / mib(b) for b, h, _ in rows]), len(rows)))
        medians.append(("(a) reduce, combining sort / sort+fold", med([s(b) for b, _, _ in rows]), med([s(c) for _, _, c in rows]),
                        med([s(c) / s(b) for b, _, c in rows]), med([mib(c) / mib(b) for b, _, c in rows]), len(rows)))
    print()

def versus(case, label, prog, title):
    print(title)
    print("| round | load DuckDB/Flow | DuckDB s | Flow s | Flow/DuckDB | DuckDB I/O MiB (r+w, /proc/self/io) | Flow I/O MiB (r+w) | Flow scratch I/O MiB | Flow plan | groups | results agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for rnd in rounds:
        r = runs.get((case, rnd), {})
        d, f = r.get('duckdb'), r.get(prog)
        if not (d and f): continue
        if d['ok'] == '1': rows.append((d, f))
        agree = ok(d, f) if d['ok'] == '1' or 'error' not in d else f"DuckDB failed ({d['error']}); Flow ok: {ok(f)}"
        print(f"| {rnd} | {d['load']}/{f['load']} | {cell(d)} | {s(f):.2f} | {ratio(s(f), s(d)) if d['ok'] == '1' else '-'} | "
              f"{mib(d):.0f} | {mib(f):.0f} | {scr(f):.0f} | {f['strategy']} | {f['groups']} | {agree} |")
    if rows:
        med = statistics.median
        medians.append((label, med([s(d) for d, _ in rows]), med([s(f) for _, f in rows]),
                        med([s(f) / s(d) for d, f in rows]), None, len(rows)))
    print()

if 'b' in which:
    versus('keys', '(b) Flow reduce / DuckDB GROUP BY', 'reduce', f"(b) group-by count, {sizes[0]}, 256 MiB: Flow reduce vs DuckDB")
if 'c' in which:
    versus('join', '(c) Flow join + reduce / DuckDB JOIN + GROUP BY', 'join_nations',
           f"(c) join + sum per nation, {sizes[1]}, 256 MiB: Flow vs DuckDB")

if medians:
    print("| comparison | rounds | median baseline s | median Flow s | median time ratio | median I/O ratio |")
    print("|---|---|---|---|---|---|")
    for label, b, f, t, io, n in medians:
        print(f"| {label} | {n} | {b:.2f} | {f:.2f} | {t:.3f} | {'-' if io is None else f'{io:.3f}'} |")
sys.exit(1 if bad else 0)
PY
