#pragma once
// How an external sort divides its budget and what I/O it does — the one copy of that
// arithmetic. flow::algo::runs_creator, runs_merger and sort_estimate size themselves
// with these functions, and the compiler's planner (flowc explain) and the generated
// programs' --stats estimates call the same ones, so all three tell the same numbers.
// Compiled once (runtime/src/plan/sort_model.cpp, in libflow_runtime and linked into
// flowc); no dependency on the rest of the runtime.
// docs/estimates.md has the formulas in words.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>
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
sort_geometry sort_block(const sort_setup& s, std::uint64_t memory);

/// Heap bytes of one pending block write (request object and bookkeeping).
inline constexpr std::uint64_t run_write_overhead = 256;
/// Heap bytes a block of a run being written holds while it is written: its first
/// element (kept in the run's description) and its write requests.
inline constexpr std::uint64_t run_block_metadata(std::uint64_t element_bytes) {
  return element_bytes + 2 * run_write_overhead;
}
/// Heap bytes of one run's description (flow::algo::run_info, checked there).
inline constexpr std::uint64_t run_info_bytes = 64;
/// Heap bytes of one (key, index) pair of indirect sorting (flow::algo::key_index).
inline constexpr std::uint64_t key_index_bytes = 16;
/// Bytes of the page a run's first elements are written and read through where they are
/// on disk (flow::algo::detail::firsts_writer).
inline constexpr std::uint64_t firsts_page_bytes = 4096;

/// Heap bytes of the list of `runs` run descriptions: it grows from 16 by doubling.
std::uint64_t run_list_bytes(std::uint64_t runs);

/// How run formation divides a budget: a metadata reserve (1/16 for the finished runs,
/// and the metadata of the run being written: a first element and the write requests
/// per block), then run slots — three (one filling, one sorting, one writing) or, when
/// sorting indirectly, two plus the key pairs and a write ring of half a run.
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
  /// The least budget of this geometry: a run of one block beside the fixed bytes, and a
  /// merge of two finished runs (see metadata_merge_memory).
  std::uint64_t least_bytes = 0;

  /// Inputs up to this many elements are sorted in memory and never written.
  std::uint64_t in_memory_elements() const noexcept { return (slots >= 3 ? 2 : 1) * run_elements; }
};

run_formation_shape run_formation(const sort_setup& s, std::uint64_t memory);

/// A merge's block buffer where the runs' first elements are on disk: it also reads its
/// run's firsts through a page and keeps two of them (flow::algo::runs_merger).
sort_geometry spilled_firsts_buffer(const sort_setup& s, const sort_geometry& g);

/// The budget run formation needs to merge `runs` of its finished runs into one when
/// their descriptions outgrow its reserve (flow::algo::runs_creator::merge_finished_runs):
/// one write buffer and the merged run's description beside a merger of those runs whose
/// first elements are on disk. That is the worst case: a merger reads them from disk when
/// they would not fit in memory beside two block buffers. Every run formation budget
/// holds a merge of two runs (run_formation is infeasible below it), so a sort of any
/// size finishes at any budget its plan accepts.
std::uint64_t metadata_merge_memory(const sort_setup& s, const sort_geometry& g, std::uint64_t runs);

/// The most runs a merge within `memory` takes (at a fan-in of two or more, with their
/// first elements on disk if need be; at least 1): run formation leaves no more than that
/// for its sort's merge (flow::algo::sort_options::merge_bytes), merging its finished runs
/// as it goes, so that the merge finishes however much data came.
std::uint64_t runs_a_merge_takes(const sort_setup& s, const sort_geometry& g, std::uint64_t memory);

/// Heap bytes per block buffer of a merge besides the buffer itself: its read request,
/// queue entries, and its share of the merge kernels' per-segment arrays on every thread.
std::uint64_t merge_buffer_overhead(unsigned threads);
/// The threads a merge of buffers of `g` merges on at most, whatever `--threads` is:
/// their arrays are planned for that many, so that the merge's fan-in — and so which
/// runs a combining merge folds first, and the bits of a float sum — is the same at
/// every thread count. Two up to blocks of 128 KiB, then one per 64 KiB of block, at
/// most 64: a thread's arrays cost 96 bytes a buffer, a fiftieth of a 4 KiB block but
/// under a six-hundredth of a 64 KiB one, and large blocks are a large budget's.
unsigned merge_threads(const sort_geometry& g);

/// How a merge divides its budget: the runs' metadata, an output buffer (1/16, 1 to 4
/// blocks), then block buffers; 1/8 of them (1 to 16) read ahead, one per run for the rest.
struct merge_shape {
  std::uint64_t output_elements = 0;
  std::uint64_t buffers = 0;
  std::uint64_t fan_in = 0;              ///< runs the final merge takes at once
  std::uint64_t intermediate_fan_in = 0; ///< runs an earlier pass takes
  std::uint64_t intermediate_write_buffers = 2; ///< buffers an earlier pass writes through
};

merge_shape merge(const sort_setup& s, const sort_geometry& g, std::uint64_t memory,
                  std::uint64_t metadata_bytes);

/// Heap bytes of the runs' metadata (their descriptions, one element per block) while a
/// merge builds a merged run's beside its inputs'.
std::uint64_t merge_metadata_bytes(const sort_setup& s, std::uint64_t runs, std::uint64_t blocks);

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
sort_cost sort_estimate(const sort_setup& s, std::uint64_t n, std::uint64_t run_memory,
                        std::uint64_t merge_memory, bool keep_last_run = false,
                        std::uint64_t distinct = saturated);

/// The runs an intermediate merge pass of flow::algo::runs_merger takes next: the `take`
/// shortest of runs of these sizes (of equal ones, the first), by their position.
std::vector<std::size_t> intermediate_pick(std::span<const std::uint64_t> sizes, std::size_t take);
/// The elements merge_before plus the intermediate passes of runs_merger will merge
/// when they merge runs of these sizes, `intermediate_fan_in` at a time, until `fan_in`
/// are left: its progress total (flow/progress.hpp).
std::uint64_t intermediate_elements(std::span<const std::uint64_t> sizes, std::size_t fan_in,
                                    std::size_t intermediate_fan_in, std::uint64_t merged_before);

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
std::uint64_t merge_memory_for(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                               std::uint64_t blocks);

/// Blocks a run formation under `rf` writes for `elements` pushed, and runs: every run
/// but the last holds R elements, a combining sort's (a reduce's, of `distinct` keys) at
/// most min(R, distinct), each run rounded up to whole blocks.
struct runs_written {
  std::uint64_t runs = 0;
  std::uint64_t blocks = 0;
};
runs_written written_by(const run_formation_shape& rf, std::uint64_t elements,
                        std::uint64_t distinct = max_elements);

/// Whether run formation under `rf` keeps the runs' metadata within its reserve for
/// `elements` pushed (of `distinct` keys, for a reduce: its metadata follows its
/// distinct keys, not its input): the check flow::algo::runs_creator (and the hash
/// table of a reduce, flow/stream/reduce.hpp) makes as it adds each run — the first
/// element of every block written and the list of run descriptions
/// (sorted_runs::metadata_bytes), one more run's worth and 4 KiB for requests.
bool run_metadata_fits(const sort_setup& s, const run_formation_shape& rf, std::uint64_t elements,
                       std::uint64_t distinct = max_elements);

/// The smallest run formation budget under which `elements` pushed (of `distinct` keys,
/// for a reduce) keep the runs' metadata within its reserve: below it a sort stops once
/// its runs are many.
std::uint64_t run_memory_for_metadata(const sort_setup& s, std::uint64_t elements,
                                      std::uint64_t distinct = max_elements);

/// The smallest merge budget that merges `runs` runs of `blocks` blocks in all to the
/// end, in passes if need be: a fan-in of all of them, or of four, so that intermediate
/// merges take two, with the metadata of all (flow::algo::runs_merger stops otherwise:
/// "too small for a second merge pass").
std::uint64_t merge_memory_to_finish(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                                     std::uint64_t blocks);

/// The smallest run formation budget that sorts `elements` in memory (at least 1: one run).
std::uint64_t run_memory_for(const sort_setup& s, std::uint64_t elements);

} // namespace flow::plan
