#!/bin/bash
# The standard library's estimates against measured I/O (docs/estimates.md, "The standard
# library's estimates"): builds every program once, then per algorithm and size runs
# `flowc explain` (static), `flowc explain --calibrate` and the program with --stats=json,
# all at --memory 16MiB, one thing at a time, and writes the table to OUT/table.md.
# Bytes, not times: the figures do not depend on the machine's load.
# Usage: bench/estimates/run_all.sh [REGEX]   (only the rows whose id matches REGEX)
# Environment: FLOWC (default build/compiler/flowc), OUT (default /tmp/flow-estimates).
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
F=$(realpath "${FLOWC:-$REPO/build/compiler/flowc}")
T=${OUT:-/tmp/flow-estimates}
EX=$REPO/examples
S=$REPO/bench/estimates/scripts
MEM=16MiB
export FLOW_CACHE_DIR=$T/cache
export FLOW_BUILD_JOBS=1
FILTER=${1:-.}
mkdir -p $T/bin $T/runs

build() {  # build NAME SCRIPT: once
  local name=$1 script=$2
  if [ ! -x $T/bin/$name ] || [ $script -nt $T/bin/$name ]; then
    echo "build $name <- $script"
    $F build -O2 $script -o $T/bin/$name || { echo "BUILD FAILED $name"; return 1; }
  fi
}

# measure ID PROG SCRIPT "SETS" [PREP]
#   SETS: space-separated name=value, given to explain as --set and to the program as --name=value
#   PREP: a shell command run first in the run folder (to make input files)
measure() {
  local id=$1 prog=$2 script=$3 sets=$4 prep=${5:-}
  [[ $id =~ $FILTER ]] || return 0
  local d=$T/runs/$id
  rm -rf $d; mkdir -p $d; cd $d
  local eset="" pargs="" s
  for s in $sets; do eset="$eset --set $s"; pargs="$pargs --${s}"; done
  echo "$script|$sets" > meta.txt
  if [ -n "$prep" ]; then echo "$prep" > prep.sh; bash -c "$prep" > prep.log 2>&1 || echo "PREP FAILED $id"; fi
  $F explain $script $eset --memory $MEM --format json > static.json 2> static.err
  $F explain $script $eset --memory $MEM > static.txt 2>&1
  $F explain --calibrate -O2 $script $eset --memory $MEM --format json > calib.json 2> calib.err
  echo "rc=$?" >> calib.err
  local t0=$(date +%s.%N)
  timeout 900 $T/bin/$prog $pargs --memory $MEM --stats=json:stats.json > stdout.txt 2> stderr.txt
  echo "rc=$?" >> stderr.txt
  local t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.1f\n", $2-$1}' > wall.txt
  echo "$id: $(cat wall.txt) s"
  cd $T
}

# ---- builds (one at a time)
for x in bfs components spanning_forest mis coloring degrees suffix_array top_k; do
  build ex_$x $EX/$x.flow
done
for x in random_edges uniform permutation symmetric dedup degrees relabel mis colouring triangles \
         list_rank sa_doubling sa_dc3 gen_text smallest_k largest_k largest_k_by frequencies \
         histogram histogram_in_memory components_external; do
  build lib_$x $S/$x.flow
done

# ---- rows: default size (d) and 4x (q)
# examples
measure degrees.ex.d      ex_degrees      $EX/degrees.flow         "nodes=1048576"
measure degrees.ex.q      ex_degrees      $EX/degrees.flow         "nodes=4194304"
measure top_k.ex.d        ex_top_k        $EX/top_k.flow           "count=10000000"
measure top_k.ex.q        ex_top_k        $EX/top_k.flow           "count=40000000"
measure bfs.ex.d          ex_bfs          $EX/bfs.flow             "nodes=100000"
measure bfs.ex.q          ex_bfs          $EX/bfs.flow             "nodes=400000"
measure components.ex.d   ex_components   $EX/components.flow      "nodes=1048576"
measure components_external.ex.d ex_components $EX/components.flow "nodes=1048576 external=true"
# 4x does not fit 16 MiB (the array of 4 * nodes bytes): the most that does, 3.5x
measure components.ex.t   ex_components   $EX/components.flow      "nodes=3670016"
measure components_external.ex.t ex_components $EX/components.flow "nodes=3670016 external=true"
# components_external alone (scripts/components_external.flow), so 4x plans at 16 MiB
measure components_external.d lib_components_external $S/components_external.flow "nodes=1048576"
measure components_external.q lib_components_external $S/components_external.flow "nodes=4194304"
measure spanning_forest.ex.d ex_spanning_forest $EX/spanning_forest.flow "nodes=200000"
measure spanning_forest.ex.q ex_spanning_forest $EX/spanning_forest.flow "nodes=800000"
measure suffix_array.ex.d ex_suffix_array $EX/suffix_array.flow    "bytes=1000000" "$T/bin/lib_gen_text --bytes=1000000 --memory $MEM"
measure suffix_array.ex.q ex_suffix_array $EX/suffix_array.flow    "bytes=4000000" "$T/bin/lib_gen_text --bytes=4000000 --memory $MEM"
measure mis_handwritten.ex.d ex_mis       $EX/mis.flow             "edges=1048576"
measure mis_handwritten.ex.q ex_mis       $EX/mis.flow             "edges=4194304"
measure coloring_handwritten.ex.d ex_coloring $EX/coloring.flow    "edges=4194304"
measure coloring_handwritten.ex.q ex_coloring $EX/coloring.flow    "edges=16777216"
# the scripts of bench/estimates/scripts
for x in random_edges symmetric dedup degrees relabel mis colouring triangles; do
  measure $x.d lib_$x $S/$x.flow "edges=4194304"
  measure $x.q lib_$x $S/$x.flow "edges=16777216"
done
for x in uniform permutation smallest_k largest_k largest_k_by frequencies histogram histogram_in_memory; do
  measure $x.d lib_$x $S/$x.flow "n=4194304"
  measure $x.q lib_$x $S/$x.flow "n=16777216"
done
for x in list_rank sa_doubling sa_dc3; do
  measure $x.d lib_$x $S/$x.flow "n=1048576"
  measure $x.q lib_$x $S/$x.flow "n=4194304"
done

python3 $REPO/bench/estimates/make_table.py $T > $T/table.md && cat $T/table.md
