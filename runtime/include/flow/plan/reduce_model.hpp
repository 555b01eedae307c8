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
#include <cmath>
#include <cstdint>

#include "flow/plan/saturating.hpp"
#include "flow/plan/sort_model.hpp"

namespace flow::plan {

/// How the hash path divides a budget: a metadata reserve for the runs it may write
/// (their first elements and pending block writes, as run formation's), the staging areas
/// and the table. The table is `partitions` open-addressing tables of `partition_slots`
/// elements each (a multiple of the block's elements, so a spill is written straight from
/// them) plus one occupancy byte per slot; a key's hash picks its partition. Elements wait
/// in their partition's staging area (`staged` of them, with their hashes) and are then
/// inserted a partition at a time, so that a round of inserts works in a table of about
/// `partition_target_bytes` that the processor's caches hold, on as many threads as there
/// are (each partition is one thread's). With more than one partition there are two sets
/// of staging areas: the input fills one while the threads insert the other's round.
/// The partitions and their schedule depend on the budget and the expected keys only,
/// never on the threads: each key is combined in input order and the table spills at the
/// same elements at any thread count, so a float combine gives the same bits at
/// --threads 1 and N. At most 3/4 of a partition's slots are used (linear probing stays
/// short); the table spills (all partitions, as one sorted run) when a new key finds its
/// partition full. `capacity`: the distinct keys it holds before that (at the size its
/// partitions can grow to from their first size), less a margin for the partitions'
/// uneven shares.
struct hash_reduce_shape {
  sort_geometry geometry;
  std::uint64_t metadata_reserve = 0;
  std::uint64_t partitions = 1;
  std::uint64_t partition_slots = 0;
  std::uint64_t staged = 0;        ///< elements each partition's staging area holds (a multiple of 64)
  std::uint64_t first_slots = 0;   ///< slots each partition starts with (it grows from there)
  std::uint64_t slots = 0;         ///< partitions * partition_slots; 0: the budget is too small
  std::uint64_t capacity = 0;      ///< distinct keys held before the table spills
  std::uint64_t table_bytes = 0;   ///< slots * (element bytes + 1)
  std::uint64_t staging_areas = 1; ///< sets of staging areas: 2 with more than one partition
  std::uint64_t staging_bytes = 0; ///< staging_areas * partitions * staged * (element bytes + 8)
};

/// The size of one partition's table that the planner aims at (an L2 cache's worth).
inline constexpr std::uint64_t partition_target_bytes = std::uint64_t{1} << 20;
/// At most this many partitions (their staging areas are a 64th of the budget).
inline constexpr std::uint64_t max_partitions = 1024;

/// The size a partition's table of `slots` grows to when its keys fill it (3/4 of it):
/// doubled, but at most to what leaves room at the end of its range of `max` slots for
/// its keys, which are moved there and inserted again; `slots` when it cannot grow.
inline std::uint64_t hash_grown_slots(std::uint64_t slots, std::uint64_t max) {
  const std::uint64_t keys = slots - slots / 4;
  return std::max(slots, std::min(2 * slots, max > keys ? max - keys : 0));
}

/// The hash path's shape for a budget and the distinct keys the script expects (0: not
/// known; the table is then planned as large as the budget allows).
inline hash_reduce_shape hash_reduce(const sort_setup& s, std::uint64_t memory, std::uint64_t expected_keys = 0) {
  hash_reduce_shape p;
  p.geometry = sort_block(s, memory);
  const std::uint64_t blocks = memory / p.geometry.bytes + 1; // of the largest spill
  p.metadata_reserve = sat_add(sat_add(std::max<std::uint64_t>(memory / 16, 4096), 4096),
                               sat_mul(blocks, run_block_metadata(s.element_bytes)));
  const std::uint64_t per_slot = s.element_bytes + 1, per_staged = s.element_bytes + 8;
  const std::uint64_t E = p.geometry.elements;
  const std::uint64_t usable = memory > p.metadata_reserve ? memory - p.metadata_reserve : 0;
  // partitions: as many as tables of the target size that the expected keys fill
  const std::uint64_t most_slots = usable / per_slot / E * E;
  const std::uint64_t want_slots =
      expected_keys > 0 ? std::min(most_slots, sat_mul(expected_keys, 3) / 2) : most_slots;
  std::uint64_t k = std::clamp<std::uint64_t>(sat_mul(want_slots, s.element_bytes) / partition_target_bytes, 1,
                                              std::max<std::uint64_t>(1, std::min(max_partitions, most_slots / E)));
  const std::uint64_t areas = k == 1 ? 1 : 2;
  p.staged = k == 1 ? 64 : std::clamp<std::uint64_t>(memory / 64 / (areas * k * per_staged), 64, 1024) / 64 * 64;
  const std::uint64_t staging = sat_mul(areas * k * p.staged, per_staged);
  const std::uint64_t table_blocks = usable > staging ? (usable - staging) / per_slot / E : 0;
  k = std::min(k, table_blocks);
  if (k == 0) return p;
  p.partitions = k;
  p.staging_areas = k == 1 ? 1 : areas;
  p.partition_slots = table_blocks / k * E;
  p.slots = k * p.partition_slots;
  p.staging_bytes = p.staging_areas * k * p.staged * per_staged;
  p.table_bytes = p.slots * per_slot;
  // The first size: its share of the expected keys at a load of 2/3, at least 4096 slots
  // in all; from there a table grows as far as hash_grown_slots lets it.
  p.first_slots = p.partition_slots;
  if (expected_keys > 0 && expected_keys < p.slots / 2)
    p.first_slots = std::min(p.partition_slots, std::max((4096 + k - 1) / k, expected_keys * 3 / 2 / k + 1));
  std::uint64_t reach = p.first_slots;
  while (hash_grown_slots(reach, p.partition_slots) > reach) reach = hash_grown_slots(reach, p.partition_slots);
  const std::uint64_t held = reach - reach / 4;
  // A partition gets about capacity/k of the keys, give or take a few square roots of
  // that: the first to fill spills the table.
  const std::uint64_t margin = k > 1 ? 4 * static_cast<std::uint64_t>(std::sqrt(static_cast<double>(held))) : 0;
  p.capacity = k * (held - std::min(held, margin));
  return p;
}

/// What reducing n elements with `distinct` keys costs each way.
struct reduce_cost {
  sort_cost sort;                 ///< the combining sort (sort_estimate with `distinct`)
  std::uint64_t hash_capacity = 0; ///< distinct keys the hash table of `run_memory` holds
  std::uint64_t hash_partitions = 0; ///< the partitions that table is split into
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
  const hash_reduce_shape h = hash_reduce(s, run_memory, distinct); // as the runtime builds it
  distinct = std::min(distinct, n);
  c.sort = sort_estimate(s, n, run_memory, merge_memory, keep_last_run, distinct);
  c.hash_capacity = h.capacity;
  c.hash_partitions = h.partitions;
  c.hash_in_memory = h.slots > 0 && distinct <= h.capacity;
  return c;
}

} // namespace flow::plan
