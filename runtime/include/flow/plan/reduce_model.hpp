#pragma once
// What `reduce (keys) with (a, b) => expr` costs, for the compiler's planner and the
// runtime (flow/stream/reduce.hpp sizes its hash table with hash_reduce). Two ways:
//  - the combining sort (reduce_runs + reduce_merge): the external sort of
//    flow/plan/sort_model.hpp where equal keys are folded in every run before it is
//    written and in every intermediate merge, so a run of R pushed elements holds
//    min(R, D) of them and a merged run min(its inputs' sum, D) (D distinct keys). That
//    is an upper bound: a run of R elements drawn from D keys usually holds fewer;
//  - the hash table (hash_reduce_runs): an open-addressing table in one flat array that
//    holds `capacity` distinct keys. With D <= capacity it does no I/O at all; else it
//    writes sorted runs of `capacity` keys whenever it fills and they are merged like
//    the combining sort's.
// Header-only, no dependency on the rest of the runtime (the compiler includes it).
#include <algorithm>
#include <cstdint>

#include "flow/plan/saturating.hpp"
#include "flow/plan/sort_model.hpp"

namespace flow::plan {

/// How the hash path divides a budget: a metadata reserve for the runs it may write
/// (their first elements and pending block writes, as run formation's), then the table:
/// `slots` elements (a multiple of the block's elements, so a spill is written straight
/// from the table) and one occupancy byte per slot. At most `capacity` = 3/4 of the slots
/// are used (linear probing stays short).
struct hash_reduce_shape {
  sort_geometry geometry;
  std::uint64_t metadata_reserve = 0;
  std::uint64_t slots = 0;       ///< 0: the budget is too small
  std::uint64_t capacity = 0;    ///< distinct keys held before the table spills
  std::uint64_t table_bytes = 0; ///< slots * (element bytes + 1)
};

inline hash_reduce_shape hash_reduce(const sort_setup& s, std::uint64_t memory) {
  hash_reduce_shape p;
  p.geometry = sort_block(s, memory);
  const std::uint64_t blocks = memory / p.geometry.bytes + 1; // of the largest spill
  p.metadata_reserve = sat_add(sat_add(std::max<std::uint64_t>(memory / 16, 4096), 4096),
                               sat_mul(blocks, sat_add(s.element_bytes, 2 * run_write_overhead)));
  const std::uint64_t per_slot = s.element_bytes + 1;
  const std::uint64_t usable = memory > p.metadata_reserve ? memory - p.metadata_reserve : 0;
  p.slots = usable / per_slot / p.geometry.elements * p.geometry.elements;
  p.capacity = p.slots - p.slots / 4;
  p.table_bytes = p.slots * per_slot;
  return p;
}

/// What reducing n elements with `distinct` keys costs each way.
struct reduce_cost {
  sort_cost sort;                 ///< the combining sort (sort_estimate with `distinct`)
  std::uint64_t hash_capacity = 0; ///< distinct keys the hash table of `run_memory` holds
  bool hash_in_memory = false;    ///< distinct <= hash_capacity: the hash path does no I/O

  /// Bytes the combining sort writes plus reads.
  std::uint64_t sort_io_bytes() const noexcept { return sort.io_bytes(); }
};

/// The cost of reducing n elements with (expected) `distinct` keys of s.element_bytes
/// each: `run_memory` for the phase that pushes (run formation or the hash table),
/// `merge_memory` for the one that reads the result (the merge), `keep_last_run` as
/// for the sort.
inline reduce_cost reduce_estimate(const sort_setup& s, std::uint64_t n, std::uint64_t distinct,
                                   std::uint64_t run_memory, std::uint64_t merge_memory,
                                   bool keep_last_run = false) {
  reduce_cost c;
  distinct = std::min(distinct, n);
  c.sort = sort_estimate(s, n, run_memory, merge_memory, keep_last_run, distinct);
  const hash_reduce_shape h = hash_reduce(s, run_memory);
  c.hash_capacity = h.capacity;
  c.hash_in_memory = h.slots > 0 && distinct <= h.capacity;
  return c;
}

} // namespace flow::plan
