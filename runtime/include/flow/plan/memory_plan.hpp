#pragma once
// How a program's memory budget is split among the nodes of each phase, and what each
// node then costs — the one copy of both. The compiler's planner (flowc explain, and the
// plan comments of generated code) runs them on the counts it estimates; a generated
// program runs them again at start with the counts of its actual params and --memory, so
// its sorts and queues are sized, and its estimate priced, for the data they will really
// get. Compiled once (runtime/src/plan/memory_plan.cpp, in libflow_runtime and linked into
// flowc); depends only on the sort, reduce and join models and the priority queue's
// planner. docs/estimates.md describes the steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/containers/pq/plan.hpp"
#include "flow/defaults.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/plan/reduce_model.hpp"
#include "flow/plan/sort_model.hpp"

namespace flow::plan {

/// What a node of the flow graph asks of the budget.
enum class memory_role {
  none,       ///< streams through without buffers (map, filter, generate, ...)
  buffer,     ///< a file or vector being read or written: two blocks
  sort_runs,  ///< run formation of a sort
  sort_merge, ///< merging of a sort
  queue,      ///< a priority queue, one budget over all the phases it lives in
  join,       ///< a join: the right side's group of equal keys (at least three blocks, and a
              ///< share of what its phase leaves), spilled beyond it (join_model.hpp)
  hash_join,  ///< a hash join: the table of its build input (partner), four spill buffers and
              ///< its threads' batch buffers, at least five blocks and those; with less than
              ///< the table, it takes passes (join_model.hpp)
  reserved,   ///< an in-memory array: elements × element_bytes in every phase it lives in
  cache,      ///< the block cache of v[i]: at least two blocks, up to the vector (elements)
  batches,    ///< a stretch of maps and filters on the program's threads: its batch buffers
              ///< (stage_batch_bytes; element_bytes: an element in plus one out), the same at any thread count
};
/// The role as C++ names it ("sort_runs"): generated programs write their memory plan with it.
const char* name(memory_role role);
/// Whether a node of the role holds its memory over every phase it lives in (its
/// live_phases), not just its own: queues, arrays and the caches of v[i].
inline bool spans_phases(memory_role r) {
  return r == memory_role::queue || r == memory_role::reserved || r == memory_role::cache;
}

/// How a node's I/O is priced (docs/estimates.md has each formula).
enum class io_rule {
  none,           ///< moves nothing to or from disk
  reads_file,     ///< reads its elements from an input file, once
  reads_store,    ///< reads its elements from a vector or a stored stream, once
  writes_file,    ///< writes its elements to an output file, once
  writes_store,   ///< writes its elements to a vector or a stored stream, once
  sort_runs,      ///< a sort's run formation: its runs (sort_model.hpp)
  sort_merge,     ///< a sort's merge: its passes over the runs
  reduce_runs,    ///< a reduce's runs: nothing when its keys fit a hash table (reduce_model.hpp)
  reduce_merge,   ///< a reduce's merge, likewise
  queue,          ///< a priority queue's external levels (pq_config::io)
  block_accesses, ///< v[i]: a block read per access, a block written per write (a bound)
  hash_join,      ///< a hash join: nothing while its table holds the build input, else its passes (join_model.hpp)
};
/// The rule as C++ names it ("sort_runs"): generated programs write their memory plan with it.
const char* name(io_rule rule);

/// Whether a reduce forms its runs in a hash table (reduce_model.hpp), which writes
/// nothing while its distinct keys fit, or sorts and combines.
enum class reduce_hashing {
  no,      ///< sorts and combines: its distinct keys are not known, or the program chose so
  if_fits, ///< a hash table when the distinct keys expected (its merge's count) fit the one its budget holds
  yes,     ///< a hash table: the program's plan chose it (memory_planner::adopt)
};
/// The choice as C++ names it ("if_fits").
const char* name(reduce_hashing hashing);

/// A node of the plan: what it asks of the budget, how its I/O is priced, and what it
/// got. One row of the memory plan (a generated program writes its rows as C++, with
/// designated initializers, the counts scaled for its params).
/// What a sort spread over the ranks (flow/ranks/sample_sort.hpp) needs beside its run
/// formation: a round's exchange buffers (two blocks) and its first elements, from which
/// the splitters are sampled (at least one block).
inline std::uint64_t sample_sort_buffers(std::uint64_t block_bytes) { return 3 * block_bytes; }
/// The sample each rank of a spread sort sends every other rank to agree on splitters:
/// this many of its first elements, evenly spaced (fewer if it has fewer).
inline constexpr std::uint64_t sample_sort_samples_per_rank = 256;
/// Whether a spread reduce of several ranks (flow/ranks/spread_reduce.hpp) folds each
/// rank's part in a hash table of half its memory before the sample sort, which then
/// gets the other half: only when both halves hold their least budgets (else the sample
/// sort alone, with all of it). The network estimate asks the same question.
inline bool spread_reduce_folds_first(const sort_setup& s, std::uint64_t memory_bytes, std::uint64_t block_bytes,
                                      std::uint64_t expected_keys) {
  return memory_bytes / 2 >= run_memory_for(s, 0) + sample_sort_buffers(block_bytes) &&
         hash_reduce(s, memory_bytes / 2, expected_keys).slots > 0;
}

/// A stretch of maps and filters run in batches on the program's threads
/// (flow/stream/batched_stages.hpp): a batch holds a share of elements for each thread,
/// and two batches are held, one being computed while the other is filled and emptied. A
/// share is about a block of inputs and outputs, at most 128 KiB (element_bytes: the
/// bytes of one input plus one output), so that a batch's work is much more than waking
/// the threads that share it, stays in their caches, and is small where the budget is.
/// A for stage's stretch (`outputs_per_input` > 1, element_bytes the input and that many
/// outputs) has up to 1 MiB: a line put out as ten words takes a tenth of its room, and
/// batches of 128 KiB — a hundred lines a thread — were gone in a quarter of a
/// millisecond, so that waking the threads and waiting for the last chunk cost the word
/// count a quarter of its time (docs/performance.md).
inline constexpr std::uint64_t stage_batch_share(std::uint64_t element_bytes, std::uint64_t block_bytes,
                                                 std::uint64_t outputs_per_input = 1) noexcept {
  const std::uint64_t most = outputs_per_input > 1 ? std::uint64_t{1} << 20 : std::uint64_t{128} << 10;
  const std::uint64_t bytes = block_bytes < most ? block_bytes : most;
  const std::uint64_t k = bytes / (element_bytes > 0 ? element_bytes : 1);
  return k < 32 ? 32 : k > 8192 ? 8192 : k;
}
/// The threads a stretch's batches are planned for, whatever `--threads` is: at more
/// threads each thread's share of a batch is smaller, at fewer larger (batched_stages
/// divides what it is given), at one the stretch runs element by element and leaves
/// them unused. So the memory split of a program — the budget of a reduce beside the
/// stretch, and so the elements where its table spills and the bits of a float sum — is
/// the same at every thread count (docs/language.md, "Threads"). Four: a share is twice
/// its most at two threads, a quarter of it at 16, and a small budget (whose blocks are
/// small) keeps most of itself for the rest.
inline constexpr unsigned stage_batch_planned_threads = 4;
/// Its buffers: two batches of inputs and outputs, stage_batch_planned_threads shares each.
inline constexpr std::uint64_t stage_batch_bytes(std::uint64_t element_bytes, std::uint64_t block_bytes,
                                                 std::uint64_t outputs_per_input = 1) noexcept {
  return sat_mul(sat_mul(2 * std::uint64_t{stage_batch_planned_threads},
                         stage_batch_share(element_bytes, block_bytes, outputs_per_input)),
                 element_bytes);
}

struct memory_node {
  memory_role role = memory_role::none;
  int phase = 0;
  std::vector<int> live_phases = {}; ///< queues, arrays and caches: every phase they live in
  double elements = 0;          ///< elements (a queue: pushes)
  std::uint64_t element_bytes = 0;
  bool keyed = false;           ///< sorts: the order has a radix key
  int partner = -1;             ///< sorts: index of the other half; a hash join: of its build input
  int probe = -1;               ///< a hash join: index of its probe input
  /// A hash join: the bytes of a probe and of a build element in memory (its inputs'
  /// element_bytes are a text line's where they read text).
  std::uint64_t probe_element_bytes = 0, build_element_bytes = 0;
  // How its I/O is priced (memory_planner::cost)
  io_rule io = io_rule::none;   ///< reduce_runs also: equal keys fold as runs form; the merge's count is the distinct keys
  double accesses = 0;          ///< v[i]: its reads, each a block at most
  double writes = 0;            ///< v[i]: its writes, each a block at most
  reduce_hashing hashing = reduce_hashing::no; ///< a reduce's run formation
  bool spread = false;          ///< sorts' and reduces' run formation: a sample sort over the ranks (sample_sort_buffers)
  double peak_fraction = 0;     ///< queues: the most items at once / pushes, as a calibration measured (0: all at once)
  std::uint64_t batch_outputs = 1; ///< batches: the room for outputs of each input (more than 1: a for stage's)
  /// Queues: the pushes it is configured for, when not `elements` (adopt: the program's plan's).
  std::optional<double> configured_for = std::nullopt;
  // results
  std::uint64_t memory = 0;
  bool in_memory = false; ///< sorts: done in memory, nothing written
  std::uint64_t runs = 0; ///< sorts: runs written
};

/// What a node costs with the budgets assigned (memory_planner::cost): the one pricing that
/// `flowc explain` prints and a program's estimate (--plan, --stats) evaluates at start.
struct node_cost {
  double read_bytes = 0;      ///< per round (a node in a while loop's phase: each round)
  double write_bytes = 0;
  /// What it keeps on the temporary disk at most: a sort's runs, a merge's peak
  /// (sort_cost::disk_peak), a queue's or a store's writes.
  double temp_disk_bytes = 0;
  unsigned passes = 0;        ///< a sort's merge passes (both halves; 0 in memory), a reduce's merge's, a queue's external levels, a hash join's passes over its probe input (0 when its table holds its build input)
  std::uint64_t fan_in = 0;   ///< a sort's or reduce's merge: its final fan-in (0 in memory)
  /// Sorts and reduces (either half): the sort model's cost (a reduce's combining sort,
  /// priced whether or not it hashes): in_memory, runs, disk_peak.
  sort_cost sort{};
  bool hashed = false;              ///< a reduce: a hash table holds its keys, nothing is written
  std::uint64_t hash_capacity = 0;  ///< a reduce: the distinct keys a hash table of its run budget holds
  std::uint64_t hash_partitions = 0; ///< a reduce: the partitions that table is split into
  std::optional<containers::pq_config> queue; ///< a queue: its configuration
  double held = 0;                  ///< a queue: the items it is priced as holding at once
};

/// A phase that cannot hold the minimum of everything in it.
struct memory_shortfall {
  int phase = 0;
  std::uint64_t needed = 0;
};

/// A node of a phase would handle more than max_elements (2^63) elements: no plan can
/// hold that. memory_planner::assign throws it; a program reports it as a bad param (exit
/// status 2), the compiler reports the count in the script before it plans.
class too_many_elements : public std::length_error {
public:
  too_many_elements(int phase, double elements);
  int phase() const noexcept { return phase_; }
  double elements() const noexcept { return elements_; }

private:
  static std::string format(double v);
  int phase_;
  double elements_;
};

class memory_planner {
public:
  /// No thread count: every buffer that threads share is planned for a fixed number of
  /// them (a stretch's batches, a merge's arrays: stage_batch_planned_threads,
  /// merge_threads), so the plan — what each node gets, where a reduce's table spills,
  /// the bits of its float sums — is the same at every `--threads`.
  memory_planner(std::vector<memory_node>& nodes, std::uint64_t memory, std::uint64_t block)
      : nodes_(nodes), memory_(memory), block_(block) {}

  sort_setup setup(const memory_node& n) const {
    return {.element_bytes = n.element_bytes, .keyed = n.keyed, .block_bytes = block_};
  }
  /// The node's count, whole; at most max_elements (assign() rejects larger ones).
  static std::uint64_t elements(const memory_node& n) {
    if (!(n.elements > 0)) return 0;
    if (n.elements >= static_cast<double>(max_elements)) return max_elements;
    return static_cast<std::uint64_t>(std::llround(n.elements));
  }
  /// The keys a run formation's runs hold at most: a reduce's distinct keys (its merge's
  /// count, if it has one), else every element.
  std::uint64_t distinct(const memory_node& runs) const {
    if (runs.io != io_rule::reduce_runs) return max_elements;
    const std::uint64_t d = elements(nodes_[static_cast<std::size_t>(runs.partner)]);
    return d > 0 ? d : max_elements;
  }
  /// The first node with more than max_elements elements (or a count that is no number).
  static const memory_node* too_many(const std::vector<memory_node>& nodes);

  /// The least a node can work with: two blocks per buffer, three one-block runs and a
  /// metadata reserve that holds the runs its count writes (a reduce's: of its distinct
  /// keys) per run formation, a fan-in of four per merge (intermediate merges take two),
  /// the queue's smallest feasible budget.
  std::uint64_t minimum(const memory_node& n) const;

  /// The sort's cost with the budgets assigned (`n` either half).
  sort_cost sort(const memory_node& n) const;

  /// A hash join's batch and output buffers (join_model.hpp; the same at any thread count).
  std::uint64_t hash_join_probe(const memory_node& j) const {
    return hash_join_probe_bytes(j.probe_element_bytes, j.element_bytes, block_);
  }

  /// Splits the budget. Returns the first phase that cannot hold its minimums.
  std::optional<memory_shortfall> assign();

  /// Node `node`'s I/O (and temporary disk, passes, a sort's model, a reduce's choice of a
  /// hash table, a queue's configuration) with the budgets assigned, by its io rule
  /// (docs/estimates.md has each formula). The one pricing of a node: flowc explain
  /// prints it, a generated program calls it at start for its own params and --memory.
  node_cost cost(std::size_t node) const;

  /// Takes the memory split of `program`, a plan of the same nodes with other counts
  /// (explain --calibrate and a calibrated program's estimate: the static plan, which is
  /// what the program makes at start), and what it configured by its own counts: a
  /// queue's pushes, a reduce's choice of a hash table. Sorts' in_memory and runs follow
  /// this plan's counts, as the runtime decides them. Instead of assign().
  void adopt(const memory_planner& program);

private:
  static bool flexible(memory_role r) {
    return r == memory_role::sort_runs || r == memory_role::sort_merge || r == memory_role::queue ||
           r == memory_role::cache || r == memory_role::hash_join;
  }
  static std::uint64_t reserved_bytes(const memory_node& n) {
    return sat_mul(elements(n), std::max<std::uint64_t>(1, n.element_bytes));
  }
  std::uint64_t queue_minimum(const memory_node& n) const;
  std::uint64_t queue_want(const memory_node& n) const;
  /// What a merge gets at least when its phase has room: its minimum and two more block
  /// buffers. The minimum's fan-in of four leaves intermediate merges a fan-in of two
  /// only for the metadata of four runs; a sort that gets more than its count (an
  /// estimate) writes more runs, whose metadata took a buffer and stopped the program
  /// ("too small for a second merge pass": the checker of suffix_array.flow at 64 MiB).
  /// What a queue leaves a merge that shares its phases beyond the merge's minimum, to
  /// read ahead: 16 blocks, at most an eighth of the budget (whole blocks).
  std::uint64_t merge_read_ahead() const {
    return std::min(sat_mul(16, block_), memory_ / 8 / block_ * block_);
  }
  std::uint64_t spare_merge(const memory_node& merge) const {
    const sort_geometry g = sort_block(setup(merge), memory_);
    return sat_add(minimum(merge), sat_mul(2, sat_add(block_, merge_buffer_overhead(merge_threads(g)))));
  }
  static std::uint64_t in_memory_bytes(double bytes) { // the data and its reserve
    const auto b = bytes < 0x1p64 ? static_cast<std::uint64_t>(std::max(0.0, bytes)) : saturated;
    return sat_add(b, std::max<std::uint64_t>(b / 16, 4096));
  }
  memory_node& node(int i) { return nodes_[static_cast<std::size_t>(i)]; }

  std::vector<memory_node>& nodes_;
  std::uint64_t memory_, block_;
};

/// The least budget above `memory` whose plan of `nodes` fits every phase, each budget M
/// with the blocks it would get: `fixed_block` (--block or the script's `block`) if set,
/// else block_for_memory(M) (flow::block_size). What "needs at least" reports, so that the
/// budget it names runs, and a budget a little below it is refused naming the same one.
/// 0 if no budget up to 2^64 - 1 holds the plan.
///
/// Within a range of budgets that get one block size, a larger budget holds what a smaller
/// one does (the minimums grow slower than the budget): the search takes the ranges in
/// order and, in the first whose largest budget fits, bisects for its least. (Across
/// ranges it may not hold: larger blocks need more, so a budget past a block change can
/// fail where one just below it fits.)
std::uint64_t least_budget(const std::vector<memory_node>& nodes, std::uint64_t memory,
                           std::optional<std::uint64_t> fixed_block);

/// What a plan of (a copy of) `nodes` for `memory` and blocks of `block` bytes leaves
/// short: the first phase that does not fit and its need, or nothing if all fit.
std::optional<memory_shortfall> shortfall_at(const std::vector<memory_node>& nodes, std::uint64_t memory,
                                             std::uint64_t block);

} // namespace flow::plan
