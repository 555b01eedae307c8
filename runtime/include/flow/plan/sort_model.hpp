#pragma once
// How an external sort divides its budget and what I/O it does — the one copy of that
// arithmetic. flow::algo::runs_creator, runs_merger and sort_estimate size themselves
// with these functions, and the compiler's planner (flowc explain) and the generated
// programs' --stats estimates call the same ones, so all three tell the same numbers.
// Header-only, no dependency on the rest of the runtime (the compiler includes it).
// docs/estimates.md has the formulas in words.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "flow/plan/saturating.hpp"

namespace flow::plan {

/// The most elements a plan takes for one node: 2^63. A count past it (generate(1e19),
/// `~ 1e20`, a param) is an error before anything is planned; every count up to it plans
/// in closed form or in loops over merge levels, and byte counts past 2^64 - 1 saturate.
inline constexpr std::uint64_t max_elements = std::uint64_t{1} << 63;
/// ceil(a / b) without overflow, for b > 0.
inline constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) noexcept {
  return a / b + (a % b != 0 ? 1 : 0);
}

/// What the sort model needs to know about the elements and the machine.
struct sort_setup {
  std::uint64_t element_bytes = 8;
  /// The order has a radix key (an integer key known at compile time; every order a script
  /// declares on integer fields has one). Keyed elements over 32 bytes are sorted
  /// indirectly: (key, index) pairs are sorted, then the elements gathered.
  bool keyed = true;
  std::uint64_t block_bytes = 0; ///< requested block size; 0: chosen from the budget
  unsigned threads = 2;          ///< threads merging (each keeps per-buffer arrays)

  bool indirect() const noexcept { return keyed && element_bytes > 32; }
};

/// Blocks hold whole elements and are a multiple of 4096 bytes (O_DIRECT).
struct sort_geometry {
  std::uint64_t bytes = 0;
  std::uint64_t elements = 0;
};
inline constexpr std::uint64_t max_default_block_bytes = std::uint64_t{2} << 20;

/// The requested block size (or min(2 MiB, memory / 64)) rounded down to a multiple of
/// lcm(element size, 4096), at least one such unit.
inline sort_geometry sort_block(const sort_setup& s, std::uint64_t memory) {
  const std::uint64_t unit = std::lcm(s.element_bytes, std::uint64_t{4096});
  const std::uint64_t target = s.block_bytes ? s.block_bytes : std::min(max_default_block_bytes, memory / 64);
  const std::uint64_t bytes = std::max<std::uint64_t>(1, target / unit) * unit;
  return {bytes, bytes / s.element_bytes};
}

/// Heap bytes of one pending block write (request object and bookkeeping).
inline constexpr std::uint64_t run_write_overhead = 256;
/// Heap bytes of one run's description (flow::algo::run_info, checked there).
inline constexpr std::uint64_t run_info_bytes = 64;
/// Heap bytes of one (key, index) pair of indirect sorting (flow::algo::key_index).
inline constexpr std::uint64_t key_index_bytes = 16;

/// Heap bytes of the list of `runs` run descriptions: it grows from 16 by doubling.
inline std::uint64_t run_list_bytes(std::uint64_t runs) {
  std::uint64_t capacity = 16;
  while (capacity < runs && capacity < max_elements) capacity *= 2;
  return sat_mul(capacity, run_info_bytes);
}

/// How run formation divides a budget: a metadata reserve (1/16), then run slots — three
/// (one filling, one sorting, one writing) or, when sorting indirectly, two plus the key
/// pairs and a write ring of half a run.
struct run_formation_shape {
  sort_geometry geometry;
  std::uint64_t slots = 3;
  std::uint64_t ring_blocks = 0;      ///< write buffers of indirect sorting
  std::uint64_t run_elements = 0;     ///< R, a multiple of the block's elements; 0: too small
  std::uint64_t slot_bytes = 0;       ///< R * element size
  std::uint64_t extra_bytes = 0;      ///< the key pair arrays
  std::uint64_t metadata_reserve = 0;
  std::uint64_t fixed_bytes = 0;      ///< reserve and ring blocks, before any run slot
  std::uint64_t bytes_per_element = 0;

  /// Inputs up to this many elements are sorted in memory and never written.
  std::uint64_t in_memory_elements() const noexcept { return (slots >= 3 ? 2 : 1) * run_elements; }
};

inline run_formation_shape run_formation(const sort_setup& s, std::uint64_t memory) {
  run_formation_shape p;
  p.geometry = sort_block(s, memory);
  p.metadata_reserve =
      std::max<std::uint64_t>(memory / 16, 4096) + 4096 + (memory / (3 * p.geometry.bytes) + 1) * 2 * run_write_overhead;
  const bool indirect = s.indirect();
  p.slots = indirect ? 2 : 3;
  p.bytes_per_element = p.slots * s.element_bytes + (indirect ? 2 * key_index_bytes + s.element_bytes / 2 : 0);
  p.fixed_bytes = p.metadata_reserve + (indirect ? 4 * p.geometry.bytes : 0);
  const std::uint64_t usable = memory > p.fixed_bytes ? memory - p.fixed_bytes : 0;
  std::uint64_t r = usable / p.bytes_per_element / p.geometry.elements * p.geometry.elements;
  if (indirect) r = std::min<std::uint64_t>(r, std::uint64_t{UINT32_MAX} / p.geometry.elements * p.geometry.elements);
  if (indirect && r) p.ring_blocks = 4 + r / p.geometry.elements / 2;
  p.run_elements = r;
  p.slot_bytes = r * s.element_bytes;
  p.extra_bytes = indirect ? r * 2 * key_index_bytes : 0;
  return p;
}

/// Heap bytes per block buffer of a merge besides the buffer itself: its read request,
/// queue entries, and its share of the merge kernels' per-segment arrays on every thread.
inline std::uint64_t merge_buffer_overhead(unsigned threads) { return 384 + 96 * std::uint64_t{threads}; }

/// How a merge divides its budget: the runs' metadata, an output buffer (1/16, 1 to 4
/// blocks), then block buffers; 1/8 of them (1 to 16) read ahead, one per run for the rest.
struct merge_shape {
  std::uint64_t output_elements = 0;
  std::uint64_t buffers = 0;
  std::uint64_t fan_in = 0;              ///< runs the final merge takes at once
  std::uint64_t intermediate_fan_in = 0; ///< runs an earlier pass takes (2 buffers write)
};

inline merge_shape merge(const sort_setup& s, const sort_geometry& g, std::uint64_t memory,
                         std::uint64_t metadata_bytes, std::uint64_t total_blocks) {
  merge_shape p;
  p.output_elements = std::max<std::uint64_t>(g.elements, std::min<std::uint64_t>(4 * g.elements, memory / 16 / s.element_bytes));
  const std::uint64_t fixed = sat_add(sat_add(metadata_bytes, sat_mul(p.output_elements, s.element_bytes)),
                                     sat_add(sat_mul(total_blocks, 8) /* prediction */, 16384 /* objects, threads */));
  const std::uint64_t rest = memory > fixed ? memory - fixed : 0;
  p.buffers = rest / (g.bytes + merge_buffer_overhead(s.threads));
  const std::uint64_t prefetch = std::clamp<std::uint64_t>(p.buffers / 8, 1, 16);
  p.fan_in = p.buffers > prefetch ? p.buffers - prefetch : 0;
  p.intermediate_fan_in = p.fan_in > 2 ? p.fan_in - 2 : 0;
  return p;
}

/// Heap bytes of the runs' metadata (their descriptions, one element per block) while a
/// merge builds a merged run's beside its inputs'.
inline std::uint64_t merge_metadata_bytes(const sort_setup& s, std::uint64_t runs, std::uint64_t blocks) {
  return sat_add(sat_mul(2, sat_add(run_list_bytes(runs), sat_mul(blocks, s.element_bytes))),
                 sat_mul(sat_add(runs, 2), run_info_bytes));
}

/// What sorting n elements costs.
struct sort_cost {
  bool feasible = true;          ///< false: run formation's budget holds no run at all
  bool in_memory = false;        ///< nothing written
  std::uint64_t runs = 0;        ///< runs of run formation
  std::uint64_t fan_in = 0;      ///< of the final merge
  unsigned passes = 0;           ///< merge passes over the data that went through most (0 in memory)
  bool last_run_in_memory = false;
  std::uint64_t block_bytes = 0;
  std::uint64_t runs_write = 0;  ///< bytes written by run formation (whole blocks)
  std::uint64_t merge_read = 0;  ///< bytes read by all merge passes
  std::uint64_t merge_write = 0; ///< bytes written by intermediate passes
  /// Temporary disk in use at once, at least: the runs, and while an intermediate merge
  /// writes its output run (allocated whole, flow::algo::detail::run_writer) its inputs
  /// are still allocated, freed block by block as they are read. A disk's file may grow
  /// further where free space is in pieces too small for a whole run.
  std::uint64_t disk_peak = 0;

  std::uint64_t io_bytes() const noexcept { return sat_add(sat_add(runs_write, merge_read), merge_write); }
};

/// The cost of sorting n elements with `run_memory` for run formation and `merge_memory`
/// for merging, as flow::algo::runs_creator and runs_merger do it. `keep_last_run`: run
/// formation keeps its last run in memory (flow::algo::sorter does); the merge merges
/// it from there if the rest of its budget takes every written run at once, else writes
/// it first. Intermediate passes merge the smallest runs, as few as leave the final merge
/// exactly its fan-in.
///
/// `distinct`: a combining sort (reduce, flow/plan/reduce_model.hpp) with at most that
/// many keys, where every run, written by run formation or by an intermediate pass,
/// holds min(its elements, distinct) elements. The default: no combining.
inline sort_cost sort_estimate(const sort_setup& s, std::uint64_t n, std::uint64_t run_memory,
                               std::uint64_t merge_memory, bool keep_last_run = false,
                               std::uint64_t distinct = saturated) {
  sort_cost c;
  const run_formation_shape rf = run_formation(s, run_memory);
  const sort_geometry g = rf.geometry;
  c.block_bytes = g.bytes;
  if (rf.run_elements == 0) {
    c.feasible = false;
    return c;
  }
  if (n <= rf.in_memory_elements()) {
    c.in_memory = true;
    return c;
  }
  const std::uint64_t R = rf.run_elements;
  c.runs = ceil_div(n, R);
  const std::uint64_t last_pushed = n - (c.runs - 1) * R;
  // elements a run holds (after combining)
  auto held = [distinct](std::uint64_t elements) { return std::min(elements, distinct); };
  const std::uint64_t full = held(R), last = held(last_pushed);
  auto blocks_of = [&](std::uint64_t elements) { return ceil_div(elements, g.elements); };
  auto bytes_of = [&](std::uint64_t runs, std::uint64_t elements) { // of `runs` runs of `elements`
    return sat_mul(runs, sat_mul(blocks_of(elements), g.bytes));
  };
  const std::uint64_t blocks = (c.runs - 1) * blocks_of(full) + blocks_of(last);
  const std::uint64_t meta = merge_metadata_bytes(s, c.runs, blocks);
  std::uint64_t disk_runs = c.runs;
  merge_shape mp;
  if (keep_last_run) {
    const merge_shape with_last = merge(s, g, merge_memory > rf.slot_bytes ? merge_memory - rf.slot_bytes : 0, meta,
                                        blocks - blocks_of(last));
    c.last_run_in_memory = with_last.fan_in >= c.runs - 1;
    if (c.last_run_in_memory) {
      mp = with_last;
      disk_runs = c.runs - 1;
    }
  }
  if (!c.last_run_in_memory) mp = merge(s, g, merge_memory, meta, blocks);
  c.fan_in = mp.fan_in;
  c.runs_write = sat_mul(c.last_run_in_memory ? blocks - blocks_of(last) : blocks, g.bytes);
  std::uint64_t on_disk = c.runs_write; // allocated now
  c.disk_peak = on_disk;
  // The intermediate passes: while more runs are left than the final merge takes, merge
  // the smallest ones — kk at a time, or as few as leave the final merge exactly its
  // fan-in k. Runs of the same size and pass level are one group with a count (all runs
  // but the last have R elements), and the merges that take kk runs of one group are done
  // together, so the loop runs over groups and levels, never over runs: it takes as long
  // for 10^18 elements as for 10^6, and computes exactly what merging run by run would.
  std::map<std::pair<std::uint64_t, unsigned>, std::uint64_t> pending; // (elements, level) → runs
  if (disk_runs > 1) pending[{full, 0}] += disk_runs - 1;
  if (disk_runs) pending[{c.last_run_in_memory ? full : last, 0}] += 1;
  std::uint64_t left = disk_runs;
  unsigned deepest = 0;
  const std::uint64_t k = std::max<std::uint64_t>(mp.fan_in, 1);
  const std::uint64_t kk = std::max<std::uint64_t>(mp.intermediate_fan_in, 2);
  while (left > k) {
    const std::uint64_t take = std::min<std::uint64_t>(kk, left - k + 1);
    const auto smallest = pending.begin();
    const auto [elements, level] = smallest->first;
    if (take == kk && smallest->second >= kk) {
      // m merges of kk runs of the smallest group: each leaves the rest of the group the
      // smallest runs (the merged run is larger, or when combining as large but a level
      // up) and at least kk runs over k - 1.
      const std::uint64_t m = std::min(smallest->second / kk, (left - k + 1 - kk) / (kk - 1) + 1);
      c.merge_read = sat_add(c.merge_read, bytes_of(m * kk, elements));
      const std::uint64_t merged = held(sat_mul(elements, kk));
      c.merge_write = sat_add(c.merge_write, bytes_of(m, merged));
      // The first of the m merges peaks highest: each frees its inputs' blocks, at least
      // as many as its output takes.
      c.disk_peak = std::max(c.disk_peak, sat_add(on_disk, bytes_of(1, merged)));
      on_disk = sat_add(on_disk - std::min(on_disk, bytes_of(m * kk, elements)), bytes_of(m, merged));
      if ((smallest->second -= m * kk) == 0) pending.erase(smallest);
      pending[{merged, level + 1}] += m;
      left -= m * (kk - 1);
      deepest = std::max(deepest, level + 1);
      continue;
    }
    // One merge of the `take` smallest runs, across groups.
    std::uint64_t merged = 0, read = 0;
    unsigned merged_level = 0;
    for (std::uint64_t need = take; need > 0;) {
      const auto it = pending.begin();
      const std::uint64_t t = std::min(need, it->second);
      c.merge_read = sat_add(c.merge_read, bytes_of(t, it->first.first));
      read = sat_add(read, bytes_of(t, it->first.first));
      merged = sat_add(merged, sat_mul(t, it->first.first));
      merged_level = std::max(merged_level, it->first.second);
      need -= t;
      if ((it->second -= t) == 0) pending.erase(it);
    }
    merged = held(merged);
    c.merge_write = sat_add(c.merge_write, bytes_of(1, merged));
    c.disk_peak = std::max(c.disk_peak, sat_add(on_disk, bytes_of(1, merged)));
    on_disk = sat_add(on_disk - std::min(on_disk, read), bytes_of(1, merged));
    pending[{merged, merged_level + 1}] += 1;
    left -= take - 1;
    deepest = std::max(deepest, merged_level + 1);
  }
  for (const auto& [run, count] : pending) c.merge_read = sat_add(c.merge_read, bytes_of(count, run.first));
  c.passes = deepest + 1;
  return c;
}

/// The smallest budget for which `enough(budget)` holds, `enough` growing with the budget
/// (what a planner gives a node that should need no more); the search starts at `from`.
/// `saturated` if none below 2^64 is.
template <class Enough> std::uint64_t smallest_budget(Enough enough, std::uint64_t from = 4096) {
  std::uint64_t lo = 0, hi = std::max<std::uint64_t>(from, 1);
  while (!enough(hi)) {
    if (hi > saturated / 2) return saturated; // no budget is enough
    hi *= 2;
  }
  while (lo + 1 < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (enough(mid) ? hi : lo) = mid;
  }
  return hi;
}

/// The smallest merge budget whose fan-in takes `runs` runs of `blocks` blocks in all at
/// once (what a planner gives a merge that should need no second pass).
inline std::uint64_t merge_memory_for(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                                      std::uint64_t blocks) {
  const std::uint64_t meta = merge_metadata_bytes(s, runs, blocks);
  return smallest_budget(
      [&](std::uint64_t m) { return merge(s, g, m, meta, blocks).fan_in >= std::max<std::uint64_t>(runs, 2); }, g.bytes);
}

/// Blocks a run formation under `rf` writes for `elements` pushed, and runs: every run
/// but the last holds R elements, a combining sort's (a reduce's, of `distinct` keys) at
/// most min(R, distinct), each run rounded up to whole blocks.
struct runs_written {
  std::uint64_t runs = 0;
  std::uint64_t blocks = 0;
};
inline runs_written written_by(const run_formation_shape& rf, std::uint64_t elements,
                               std::uint64_t distinct = max_elements) {
  if (rf.run_elements == 0) return {};
  const std::uint64_t runs = ceil_div(elements, rf.run_elements);
  const std::uint64_t blocks =
      distinct >= rf.run_elements ? sat_add(ceil_div(elements, rf.geometry.elements), runs)
                                  : sat_mul(runs, ceil_div(std::max<std::uint64_t>(distinct, 1), rf.geometry.elements));
  return {runs, blocks};
}

/// Whether run formation under `rf` keeps the runs' metadata within its reserve for
/// `elements` pushed (of `distinct` keys, for a reduce: its metadata follows its
/// distinct keys, not its input): the check flow::algo::runs_creator (and the hash
/// table of a reduce, flow/stream/reduce.hpp) makes as it adds each run — the first
/// element of every block written and the list of run descriptions
/// (sorted_runs::metadata_bytes), one more run's worth and 4 KiB for requests.
inline bool run_metadata_fits(const sort_setup& s, const run_formation_shape& rf, std::uint64_t elements,
                              std::uint64_t distinct = max_elements) {
  if (rf.run_elements == 0) return false;
  const runs_written w = written_by(rf, elements, distinct);
  const std::uint64_t run_blocks = rf.run_elements / rf.geometry.elements;
  return sat_add(sat_add(sat_mul(w.blocks, s.element_bytes), run_list_bytes(w.runs)),
                 run_blocks * (s.element_bytes + 2 * run_write_overhead) + 4096) <= rf.metadata_reserve;
}

/// The smallest run formation budget under which `elements` pushed (of `distinct` keys,
/// for a reduce) keep the runs' metadata within its reserve: below it a sort stops once
/// its runs are many.
inline std::uint64_t run_memory_for_metadata(const sort_setup& s, std::uint64_t elements,
                                             std::uint64_t distinct = max_elements) {
  return smallest_budget([&](std::uint64_t m) { return run_metadata_fits(s, run_formation(s, m), elements, distinct); });
}

/// The smallest merge budget that merges `runs` runs of `blocks` blocks in all to the
/// end, in passes if need be: a fan-in of all of them, or of four, so that intermediate
/// merges take two, with the metadata of all (flow::algo::runs_merger stops otherwise:
/// "too small for a second merge pass").
inline std::uint64_t merge_memory_to_finish(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                                            std::uint64_t blocks) {
  const std::uint64_t meta = merge_metadata_bytes(s, runs, blocks);
  const std::uint64_t fan_in = std::min<std::uint64_t>(std::max<std::uint64_t>(runs, 2), 4);
  return smallest_budget([&](std::uint64_t m) { return merge(s, g, m, meta, blocks).fan_in >= fan_in; }, g.bytes);
}

/// The smallest run formation budget that sorts `elements` in memory (at least 1: one run).
inline std::uint64_t run_memory_for(const sort_setup& s, std::uint64_t elements) {
  return smallest_budget([&](std::uint64_t m) {
    const run_formation_shape rf = run_formation(s, m);
    return rf.run_elements > 0 && rf.in_memory_elements() >= std::max<std::uint64_t>(elements, 1);
  });
}

} // namespace flow::plan
