#!/usr/bin/env bash
# Sequential I/O benchmark of the runtime's buffered block streams against dd on the same
# disk. Not a test: it never fails on speed.
#
#  1. dd writes then reads 4 GiB with O_DIRECT (bs=8M count=512 oflag=direct / iflag=direct).
#  2. flow_io_bench writes then reads 4 GiB through block_ostream / block_istream (8 MiB
#     blocks, 4 buffers, O_DIRECT) doing light work per element (a multiply to make it, an
#     add and a shift-xor to consume it). The run is disk-bound: the ratio to dd is the
#     measure, and the computing thread necessarily waits for the disk most of the time.
#  3. The same with K rounds of a mixing function per element, K chosen so that the
#     computation alone takes about as long as the disk did in 2: now the computing
#     thread's I/O wait share shows how much of the I/O the streams hide.
#
#   bench/io/run.sh                      # uses ./build, disk files in /var/tmp
#   FLOW_BUILD_DIR=build-rt FLOW_BENCH_DIR=/scratch bench/io/run.sh
#   FLOW_BENCH_DD_COUNT=128 bench/io/run.sh    # 1 GiB instead of 4 GiB
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${FLOW_BUILD_DIR:-$here/build}
case "$build" in /*) ;; *) build="$here/$build" ;; esac
dir=${FLOW_BENCH_DIR:-/var/tmp}
count=${FLOW_BENCH_DD_COUNT:-512}          # 8 MiB blocks: 512 = 4 GiB
bytes=$((count * 8 * 1024 * 1024))
block_mib=${FLOW_BENCH_BLOCK_MIB:-8}
buffers=${FLOW_BENCH_BUFFERS:-4}

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
echo "volume: $bytes bytes; dd bs=8M count=$count; flow blocks ${block_mib} MiB x $buffers buffers"

sync
dd_w=$(dd if=/dev/zero of="$ddfile" bs=8M count="$count" oflag=direct 2>&1 | dd_seconds)
dd_r=$(dd if="$ddfile" of=/dev/null bs=8M iflag=direct 2>&1 | dd_seconds)
rm -f "$ddfile"
dd_wm=$(mibs "$bytes" "$dd_w"); dd_rm=$(mibs "$bytes" "$dd_r")

run_flow() { "$bench" --dir "$dir" --bytes "$bytes" --block-mib "$block_mib" --buffers "$buffers" --direct on --work "$1"; }

light=$(run_flow 0)
fwm=$(mibs "$bytes" "$(get "$light" write_seconds)"); frm=$(mibs "$bytes" "$(get "$light" read_seconds)")

# Calibrate K on a 1/16 sample: smallest power of two whose computation alone takes at
# least as long as the slower light-work phase took with the disk.
disk_s=$(awk -v a="$(get "$light" write_seconds)" -v b="$(get "$light" read_seconds)" 'BEGIN { print (a > b ? a : b) }')
k=1
while :; do
  sample=$("$bench" --dir "$dir" --bytes $((bytes / 16)) --work "$k" --compute-only on)
  c=$(awk -v w="$(get "$sample" write_compute_seconds)" -v r="$(get "$sample" read_compute_seconds)" 'BEGIN { print 16 * (w < r ? w : r) }')
  if awk -v c="$c" -v d="$disk_s" 'BEGIN { exit !(c >= d) }' || [ "$k" -ge 256 ]; then break; fi
  k=$((k * 2))
done
heavy=$(run_flow "$k")
hwm=$(mibs "$bytes" "$(get "$heavy" write_seconds)"); hrm=$(mibs "$bytes" "$(get "$heavy" read_seconds)")

printf '\n%-24s %10s %10s %9s %10s %10s\n' "run" "dd MiB/s" "flow MiB/s" "flow/dd" "compute s" "I/O wait"
row() { # name dd flow compute wait
  printf '%-24s %10s %10s %9s %10s %10s\n' "$1" "$2" "$3" "$(ratio "$3" "$2")" "$4" "$(pct "$5")"
}
row "write, light work" "$dd_wm" "$fwm" "$(get "$light" write_compute_seconds)" "$(get "$light" write_io_wait_share)"
row "read, light work" "$dd_rm" "$frm" "$(get "$light" read_compute_seconds)" "$(get "$light" read_io_wait_share)"
row "write, work K=$k" "$dd_wm" "$hwm" "$(get "$heavy" write_compute_seconds)" "$(get "$heavy" write_io_wait_share)"
row "read, work K=$k" "$dd_rm" "$hrm" "$(get "$heavy" read_compute_seconds)" "$(get "$heavy" read_io_wait_share)"
echo
echo "flow seconds: light write $(get "$light" write_seconds), read $(get "$light" read_seconds);" \
     "K=$k write $(get "$heavy" write_seconds), read $(get "$heavy" read_seconds)"
echo "flow measured I/O volume (light run): wrote $(get "$light" write_disk_write_bytes) bytes in" \
     "$(get "$light" write_requests) requests, read $(get "$light" read_disk_read_bytes) bytes in" \
     "$(get "$light" read_requests) requests; O_DIRECT=$(get "$light" direct);" \
     "checksums ok: $(get "$light" checksum_ok) $(get "$heavy" checksum_ok)"
