#!/usr/bin/env bash
# Sequential I/O benchmark of the runtime's buffered block streams against dd on the same
# disk. Not a test: it never fails on speed.
#
# Steps 1 and 2 alternate for FLOW_BENCH_ROUNDS rounds (default 3); medians are shown.
#  1. dd writes then reads 4 GiB with O_DIRECT (bs=8M count=512 oflag=direct / iflag=direct).
#  2. flow_io_bench writes then reads 4 GiB through block_ostream / block_istream (8 MiB
#     blocks, 4 buffers, O_DIRECT) doing light work per element (a multiply to make it, an
#     add and a shift-xor to consume it). The run is disk-bound: the ratio to dd is the
#     measure, and the computing thread necessarily waits for the disk most of the time.
#  3. The same with K rounds of a mixing function per element, K chosen so that the
#     computation alone takes 1.5 times as long as the disk did in 2: ideally
#     the phase then takes max(compute, disk), and the computing thread's I/O wait share
#     shows how much of the I/O the streams failed to hide.
#
#   bench/io/run.sh                      # uses ./build, disk files in /var/tmp
#   FLOW_BUILD_DIR=build-rt FLOW_BENCH_DIR=/scratch bench/io/run.sh
#   FLOW_BENCH_DD_COUNT=128 FLOW_BENCH_ROUNDS=1 bench/io/run.sh   # 1 GiB, one round
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${FLOW_BUILD_DIR:-$here/build}
case "$build" in /*) ;; *) build="$here/$build" ;; esac
dir=${FLOW_BENCH_DIR:-/var/tmp}
count=${FLOW_BENCH_DD_COUNT:-512}          # 8 MiB blocks: 512 = 4 GiB
bytes=$((count * 8 * 1024 * 1024))
block_mib=${FLOW_BENCH_BLOCK_MIB:-8}
buffers=${FLOW_BENCH_BUFFERS:-4}
rounds=${FLOW_BENCH_ROUNDS:-3}

if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target flow_io_bench -j2 >/dev/null
bench="$build/bench/io/flow_io_bench"

ddfile="$dir/flow-bench-dd.$$"
trap 'rm -f "$ddfile"' EXIT INT TERM

# dd prints "N bytes (...) copied, S s, R MB/s"; take the seconds, compute MiB/s ourselves.
dd_seconds() { sed -n 's/.* copied, \([0-9.]*\) s,.*/\1/p' | tail -1; }
mibs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / 1048576 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
pct() { awk -v a="$1" 'BEGIN { printf "%.1f%%", 100 * a }'; }
get() { echo "$1" | sed -n "s/^$2=//p"; }

echo "disk directory: $dir ($(df -hT "$dir" | awk 'NR==2 {print $2 " on " $1}'))"
echo "volume: $bytes bytes; dd bs=8M count=$count; flow blocks ${block_mib} MiB x $buffers buffers;" \
     "median of $rounds alternating rounds"

# Alternate dd and flow for several rounds and take medians: a virtual or shared disk
# varies by tens of percent from one run to the next.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
run_flow() { "$bench" --dir "$dir" --bytes "$bytes" --block-mib "$block_mib" --buffers "$buffers" --direct on --work "$1"; }

sync
dd_ws=(); dd_rs=(); lights=()
for ((round = 1; round <= rounds; round++)); do
  dd_ws+=("$(dd if=/dev/zero of="$ddfile" bs=8M count="$count" oflag=direct 2>&1 | dd_seconds)")
  dd_rs+=("$(dd if="$ddfile" of=/dev/null bs=8M iflag=direct 2>&1 | dd_seconds)")
  rm -f "$ddfile"
  lights+=("$(run_flow 0)")
done
dd_w=$(printf '%s\n' "${dd_ws[@]}" | median); dd_r=$(printf '%s\n' "${dd_rs[@]}" | median)
dd_wm=$(mibs "$bytes" "$dd_w"); dd_rm=$(mibs "$bytes" "$dd_r")
# The light run reported is the one with the median write+read time.
light=$(for l in "${lights[@]}"; do
  echo "$(awk -v a="$(get "$l" write_seconds)" -v b="$(get "$l" read_seconds)" 'BEGIN { print a + b }') $(echo "$l" | tr '\n' ' ')"
done | sort -g | awk -v n="${#lights[@]}" 'NR == int((n + 1) / 2) { $1 = ""; print }' | tr ' ' '\n' | sed '/^$/d')
flow_ws=$(for l in "${lights[@]}"; do get "$l" write_seconds; done | median)
flow_rs=$(for l in "${lights[@]}"; do get "$l" read_seconds; done | median)

# Calibrate K on a 1/16 sample: the cost of one round of work per element, then the
# smallest K whose computation alone takes 1.5 times as long as the slowest light phase
# of any round (the margin keeps the run compute-bound when the disk slows down).
disk_s=$(for l in "${lights[@]}"; do get "$l" write_seconds; get "$l" read_seconds; done |
  sort -g | tail -1 | awk '{ print 1.5 * $1 }')
compute_of() { # K -> seconds for the whole volume (the cheaper of the two phases)
  local sample
  sample=$("$bench" --dir "$dir" --bytes $((bytes / 16)) --work "$1" --compute-only on)
  awk -v w="$(get "$sample" write_compute_seconds)" -v r="$(get "$sample" read_compute_seconds)" \
    'BEGIN { print 16 * (w < r ? w : r) }'
}
c0=$(compute_of 0); c16=$(compute_of 16)
k=$(awk -v d="$disk_s" -v c0="$c0" -v c16="$c16" \
  'BEGIN { r = (c16 - c0) / 16; k = (r > 0) ? int((d - c0) / r) + 1 : 16; if (k < 1) k = 1; if (k > 1024) k = 1024; print k }')
heavy=$(run_flow "$k")

printf '\nLight work per element (disk-bound; compare bandwidth with dd):\n'
printf '%-7s %10s %10s %9s %12s %10s\n' "phase" "dd MiB/s" "flow MiB/s" "flow/dd" "disk busy" "I/O wait"
light_row() { # phase dd-MiB/s median-flow-seconds
  local t=$3
  printf '%-7s %10s %10s %9s %12s %10s\n' "$1" "$2" "$(mibs "$bytes" "$t")" \
    "$(ratio "$(mibs "$bytes" "$t")" "$2")" "$(ratio "$(get "$light" "$1_disk_busy_seconds")" "$(get "$light" "$1_seconds")")" \
    "$(pct "$(get "$light" "$1_io_wait_share")")"
}
light_row write "$dd_wm" "$flow_ws"
light_row read "$dd_rm" "$flow_rs"

printf '\nWork K=%s per element, computation alone longer than the disk (overlap):\n' "$k"
printf '%-7s %12s %12s %12s %12s %10s\n' "phase" "compute s" "disk s" "ideal s" "flow s" "I/O wait"
heavy_row() {
  local c d t ideal
  c=$(get "$heavy" "$1_compute_seconds"); d=$(get "$heavy" "$1_disk_busy_seconds"); t=$(get "$heavy" "$1_seconds")
  ideal=$(awk -v a="$c" -v b="$d" 'BEGIN { print (a > b ? a : b) }')
  printf '%-7s %12s %12s %12s %12s %10s\n' "$1" "$c" "$d" "$ideal" "$t" "$(pct "$(get "$heavy" "$1_io_wait_share")")"
}
heavy_row write
heavy_row read
echo
echo "seconds per round: dd write ${dd_ws[*]}; dd read ${dd_rs[*]};" \
     "flow write $(for l in "${lights[@]}"; do get "$l" write_seconds; done | tr '\n' ' ')read $(for l in "${lights[@]}"; do get "$l" read_seconds; done | tr '\n' ' ')"
echo "flow measured I/O volume (light run): wrote $(get "$light" write_disk_write_bytes) bytes in" \
     "$(get "$light" write_requests) requests, read $(get "$light" read_disk_read_bytes) bytes in" \
     "$(get "$light" read_requests) requests; O_DIRECT=$(get "$light" direct);" \
     "checksums ok: $(get "$light" checksum_ok) $(get "$heavy" checksum_ok)"
