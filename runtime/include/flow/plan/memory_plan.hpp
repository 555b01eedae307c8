#pragma once
// How a program's memory budget is split among the nodes of each phase — the one copy
// of that algorithm. The compiler's planner (flowc explain, and the plan comments of
// generated code) runs it on the counts it estimates; a generated program runs it again
// at start with the counts of its actual params and --memory, so its sorts and queues are
// sized for the data they will really get. Header-only; depends only on the sort model
// and the priority queue's planner. docs/estimates.md describes the steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/containers/pq/plan.hpp"
#include "flow/defaults.hpp"
#include "flow/plan/join_model.hpp"
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
  reserved,   ///< an in-memory array: elements × element_bytes in every phase it lives in
  cache,      ///< the block cache of v[i]: at least two blocks, up to the vector (elements)
};

struct memory_node {
  memory_role role = memory_role::none;
  int phase = 0;
  std::vector<int> live_phases; ///< queues, arrays and caches: every phase they live in
  double elements = 0;          ///< elements (a queue: pushes)
  std::uint64_t element_bytes = 0;
  bool keyed = false;           ///< sorts: the order has a radix key
  int partner = -1;             ///< sorts: index of the other half
  bool combines = false;        ///< reduces: equal keys fold as runs form; the merge's count is the distinct keys
  // results
  std::uint64_t memory = 0;
  bool in_memory = false; ///< sorts: done in memory, nothing written
  std::uint64_t runs = 0; ///< sorts: runs written
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
  too_many_elements(int phase, double elements)
      : std::length_error("phase " + std::to_string(phase) + " would handle " + format(elements) +
                          " elements, more than 2^63"),
        phase_(phase), elements_(elements) {}
  int phase() const noexcept { return phase_; }
  double elements() const noexcept { return elements_; }

private:
  static std::string format(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  int phase_;
  double elements_;
};

class memory_planner {
public:
  memory_planner(std::vector<memory_node>& nodes, std::uint64_t memory, std::uint64_t block, unsigned threads)
      : nodes_(nodes), memory_(memory), block_(block), threads_(threads) {}

  sort_setup setup(const memory_node& n) const {
    return {.element_bytes = n.element_bytes, .keyed = n.keyed, .block_bytes = block_, .threads = threads_};
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
    if (!runs.combines) return max_elements;
    const std::uint64_t d = elements(nodes_[static_cast<std::size_t>(runs.partner)]);
    return d > 0 ? d : max_elements;
  }
  /// The first node with more than max_elements elements (or a count that is no number).
  static const memory_node* too_many(const std::vector<memory_node>& nodes) {
    for (const memory_node& n : nodes)
      if (n.role != memory_role::none && !(n.elements <= static_cast<double>(max_elements))) return &n;
    return nullptr;
  }

  /// The least a node can work with: two blocks per buffer, three one-block runs and a
  /// metadata reserve that holds the runs its count writes (a reduce's: of its distinct
  /// keys) per run formation, a fan-in of four per merge (intermediate merges take two),
  /// the queue's smallest feasible budget.
  std::uint64_t minimum(const memory_node& n) const {
    switch (n.role) {
    case memory_role::buffer: return 2 * block_;
    case memory_role::join: return join_min_memory(block_);
    case memory_role::sort_runs: // one run, and the metadata of the runs its count writes
      return std::max(run_memory_for(setup(n), 0), run_memory_for_metadata(setup(n), elements(n), distinct(n)));
    case memory_role::sort_merge: {
      const sort_setup s = setup(n);
      return merge_memory_for(s, sort_block(s, memory_), 4, 4);
    }
    case memory_role::queue: return queue_minimum(n);
    case memory_role::reserved: return reserved_bytes(n);
    case memory_role::cache: return 2 * block_;
    default: return 0;
    }
  }

  /// The sort's cost with the budgets assigned (`n` either half).
  sort_cost sort(const memory_node& n) const {
    const memory_node& runs = n.role == memory_role::sort_runs ? n : nodes_[static_cast<std::size_t>(n.partner)];
    const memory_node& merge = nodes_[static_cast<std::size_t>(runs.partner)];
    return sort_estimate(setup(runs), elements(runs), runs.memory, merge.memory);
  }

  /// Splits the budget. Returns the first phase that cannot hold its minimums.
  std::optional<memory_shortfall> assign();

private:
  static bool flexible(memory_role r) {
    return r == memory_role::sort_runs || r == memory_role::sort_merge || r == memory_role::queue ||
           r == memory_role::cache;
  }
  static bool spans_phases(memory_role r) {
    return r == memory_role::queue || r == memory_role::reserved || r == memory_role::cache;
  }
  static std::uint64_t reserved_bytes(const memory_node& n) {
    return sat_mul(elements(n), std::max<std::uint64_t>(1, n.element_bytes));
  }
  std::uint64_t queue_minimum(const memory_node& n) const {
    // The smallest budget plan_priority_queue accepts, found by doubling from 1 MiB.
    for (std::uint64_t m = 1 << 20; m <= memory_; m = sat_mul(m, 2)) {
      if (containers::plan_priority_queue(m, 0, n.element_bytes, block_).feasible) return m;
      if (m == saturated) break;
    }
    return sat_add(memory_, 1);
  }
  std::uint64_t queue_want(const memory_node& n) const {
    // Enough to keep every item internal if that is affordable, else as much as allowed.
    const auto items = elements(n);
    for (std::uint64_t m = queue_minimum(n); m <= memory_; m = sat_add(m, m / 4)) {
      auto cfg = containers::plan_priority_queue(m, items, n.element_bytes, block_);
      if (cfg.feasible && cfg.flush_items >= items) return m;
      if (m == saturated) break;
    }
    return memory_;
  }
  /// What a merge gets at least when its phase has room: its minimum and two more block
  /// buffers. The minimum's fan-in of four leaves intermediate merges a fan-in of two
  /// only for the metadata of four runs; a sort that gets more than its count (an
  /// estimate) writes more runs, whose metadata took a buffer and stopped the program
  /// ("too small for a second merge pass": the checker of suffix_array.flow at 64 MiB).
  std::uint64_t spare_merge(const memory_node& merge) const {
    return sat_add(minimum(merge), sat_mul(2, sat_add(block_, merge_buffer_overhead(threads_))));
  }
  static std::uint64_t in_memory_bytes(double bytes) { // the data and its reserve
    const auto b = bytes < 0x1p64 ? static_cast<std::uint64_t>(std::max(0.0, bytes)) : saturated;
    return sat_add(b, std::max<std::uint64_t>(b / 16, 4096));
  }
  memory_node& node(int i) { return nodes_[static_cast<std::size_t>(i)]; }

  std::vector<memory_node>& nodes_;
  std::uint64_t memory_, block_;
  unsigned threads_;
};

inline std::optional<memory_shortfall> memory_planner::assign() {
  if (const memory_node* n = too_many(nodes_)) throw too_many_elements(n->phase, n->elements);
  const std::uint64_t M = memory_;
  std::map<int, std::vector<int>> nodes_of;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    memory_node& n = nodes_[i];
    n.memory = 0;
    n.in_memory = false;
    n.runs = 0;
    if (n.role == memory_role::none) continue;
    if (spans_phases(n.role)) {
      for (int p : n.live_phases) nodes_of[p].push_back(static_cast<int>(i));
    } else {
      nodes_of[n.phase].push_back(static_cast<int>(i));
    }
  }
  // 1. Buffers are fixed. Every phase must hold the minimum of everything in it.
  std::map<int, std::uint64_t> fixed, minimums;
  for (auto& [p, ids] : nodes_of) {
    for (int id : ids) {
      memory_node& n = node(id);
      if (flexible(n.role)) {
        minimums[p] = sat_add(minimums[p], minimum(n));
      } else {
        n.memory = minimum(n);
        fixed[p] = sat_add(fixed[p], n.memory);
      }
    }
    if (sat_add(fixed[p], minimums[p]) > M) return memory_shortfall{p, sat_add(fixed[p], minimums[p])};
  }
  // 2. Queues keep one budget for their whole life. Of the budgets that fit every phase
  //    the queue lives in, take the one with the least I/O in total: the queue's own and
  //    that of the merges it shares phases with (a merge squeezed by the queue may need
  //    another pass over all its data, which usually costs more than the queue saves).
  auto merge_io = [&](const memory_node& merge, std::uint64_t memory) {
    // with the most run formation could get in its phase: the fewest runs
    const memory_node& creator = nodes_[static_cast<std::size_t>(merge.partner)];
    const int p = creator.phase;
    const std::uint64_t room = M - fixed[p] - minimums[p] + minimum(creator);
    return static_cast<double>(sort_estimate(setup(creator), elements(creator), room, memory).io_bytes());
  };
  for (memory_node& q : nodes_) {
    if (q.role != memory_role::queue || q.live_phases.empty()) continue;
    std::uint64_t lo = minimum(q), hi = queue_want(q);
    for (int p : q.live_phases) hi = std::min(hi, M - fixed[p] - minimums[p] + minimum(q));
    hi = std::max(hi, lo);
    double best_io = -1;
    std::uint64_t best = lo;
    // The queue's I/O is not monotone in its budget: which flushes complete a merge of
    // the next level depends on the exact push count, which is an estimate. The budget is
    // chosen by the least I/O any budget up to c gives (more memory never costs I/O for
    // that reason), so a larger budget ties with a smaller one and wins.
    double queue_io = -1;
    for (std::uint64_t c = lo;; c = std::min(hi, std::max(sat_add(c, block_), sat_add(c, c / 8)))) {
      const double own = static_cast<double>(
          containers::plan_priority_queue(c, elements(q), q.element_bytes, block_).io_bytes(elements(q), elements(q)));
      queue_io = queue_io < 0 ? own : std::min(queue_io, own);
      double io = queue_io;
      for (int p : q.live_phases)
        for (int id : nodes_of[p])
          if (node(id).role == memory_role::sort_merge) {
            const std::uint64_t spare = M - fixed[p] - minimums[p] + minimum(q) + minimum(node(id)) - c;
            io += merge_io(node(id), spare);
          }
      if (best_io < 0 || io < best_io || (io == best_io && c > best)) {
        best_io = io;
        best = c;
      }
      if (c >= hi) break;
    }
    q.memory = best;
    for (int p : q.live_phases) {
      minimums[p] -= minimum(q);
      fixed[p] += q.memory;
    }
  }
  // 2b. The cache of v[i] keeps one budget over the phases of its statement: at least two
  //     blocks, up to a quarter of the budget and half of what its phases have spare
  //     (sorts keep the rest). Vector sizes are often unknown (pushes in a while loop),
  //     and a cache allocates a block only when it first holds one, so a small vector
  //     never takes more than itself.
  for (memory_node& c : nodes_) {
    if (c.role != memory_role::cache || c.live_phases.empty()) continue;
    const std::uint64_t lo = minimum(c);
    std::uint64_t spare = M;
    for (int p : c.live_phases) spare = std::min(spare, M - fixed[p] - minimums[p] + lo);
    const std::uint64_t want = std::min(M / 4, spare / 2) / block_ * block_;
    c.memory = std::max(lo, want);
    for (int p : c.live_phases) {
      minimums[p] -= lo;
      fixed[p] += c.memory;
    }
  }
  // 3. Phase by phase: merges first (their runs are known by now; giving a merge its full
  //    fan-in saves a pass), then run formation shares the rest by data volume, and what
  //    is left goes to the merges.
  for (auto& [p, ids] : nodes_of) {
    std::uint64_t available = M - fixed[p];
    std::vector<int> merges, runs;
    for (int id : ids) {
      if (node(id).role == memory_role::sort_merge) merges.push_back(id);
      if (node(id).role == memory_role::sort_runs) runs.push_back(id);
    }
    // What each merge needs to merge the runs its sort writes to the end (the metadata
    // of all of them and a fan-in of four; its minimum if the sort stays in memory): a
    // merge given less stops mid-run, so a phase that cannot hold these does not hold
    // the plan. Each merge is served keeping the others' needs.
    std::uint64_t run_minimums = 0, merge_needs = 0;
    for (int id : runs) run_minimums += minimum(node(id));
    std::map<int, std::uint64_t> need;
    for (int id : merges) {
      const memory_node& creator = node(node(id).partner);
      const sort_setup s = setup(creator);
      const run_formation_shape rf = run_formation(s, creator.memory);
      const std::uint64_t n = elements(creator);
      need[id] = minimum(node(id));
      if (n > rf.in_memory_elements()) {
        const runs_written w = written_by(rf, n, distinct(creator));
        need[id] = std::max(need[id], merge_memory_to_finish(s, rf.geometry, w.runs, w.blocks));
      }
      merge_needs = sat_add(merge_needs, need[id]);
    }
    if (sat_add(run_minimums, merge_needs) > available)
      return memory_shortfall{p, sat_add(fixed[p], sat_add(run_minimums, merge_needs))};
    for (int id : merges) {
      memory_node& merge = node(id);
      memory_node& creator = node(merge.partner);
      merge_needs -= need[id];
      const std::uint64_t room = available - run_minimums - merge_needs;
      // The runtime sorts in memory whenever run formation held everything; the merge
      // phase then keeps the data.
      const sort_setup s = setup(creator);
      const run_formation_shape rf = run_formation(s, creator.memory);
      const std::uint64_t n = elements(creator);
      if (n <= rf.in_memory_elements()) {
        // Still at least the merge's minimum (the phase holds it: step 1): a count is an
        // estimate, and a sort that gets more than its run formation holds writes runs
        // that its merge must take (DC3's deeper levels, planned small, did: a merge of
        // 16 runs given 4,864 bytes stopped the program).
        merge.in_memory = creator.in_memory = true;
        merge.memory = std::max(std::min(room, spare_merge(merge)),
                                std::min(room, in_memory_bytes(creator.elements * static_cast<double>(creator.element_bytes))));
      } else {
        const runs_written w = written_by(rf, n, distinct(creator));
        creator.runs = merge.runs = w.runs;
        merge.memory = std::min(room, std::max(spare_merge(merge), merge_memory_for(s, rf.geometry, w.runs, w.blocks)));
      }
      available -= merge.memory;
    }
    double volume = 0;
    for (int id : runs) volume += std::max(1.0, node(id).elements * static_cast<double>(node(id).element_bytes));
    const std::uint64_t share = available;
    for (int id : runs) {
      memory_node& n = node(id);
      const double weight = std::max(1.0, n.elements * static_cast<double>(n.element_bytes)) / volume;
      // Everything in memory: the smallest budget whose in-memory capacity holds the data.
      const std::uint64_t want = std::min(M, run_memory_for(setup(n), elements(n)));
      const std::uint64_t given = static_cast<std::uint64_t>(static_cast<double>(share) * weight) / block_ * block_;
      n.memory = std::max(minimum(n), std::min(want, given));
      available -= std::min(available, n.memory);
    }
    // A run formation whose input has no count (a file without `~ N`, a stream after a
    // for stage of unknown output) may get any amount of data: it shares what is left
    // with the merges, so its runs are as long as the phase allows (planned for 0
    // elements, it formed runs of a few blocks, whose metadata outgrew its reserve).
    std::vector<int> uncounted;
    for (int id : runs)
      if (!(node(id).elements > 0)) uncounted.push_back(id);
    if (!uncounted.empty()) {
      const std::uint64_t each = available / (uncounted.size() + (merges.empty() ? 0 : 1)) / block_ * block_;
      for (int id : uncounted) {
        node(id).memory += each;
        available -= each;
      }
    }
    // A merge holds nothing past its phase, and a wider fan-in keeps one pass when the
    // data is more than counted; a join keeps larger groups of equal keys in memory.
    // They share what is left.
    std::vector<int> joins;
    for (int id : ids)
      if (node(id).role == memory_role::join) joins.push_back(id);
    const std::size_t takers = merges.size() + joins.size();
    if (takers > 0) {
      const std::uint64_t each = available / takers / block_ * block_;
      for (int id : merges) node(id).memory += each;
      for (int id : joins) node(id).memory += each;
    }
  }
  return std::nullopt;
}

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
inline std::uint64_t least_budget(const std::vector<memory_node>& nodes, std::uint64_t memory,
                                  std::optional<std::uint64_t> fixed_block, unsigned threads) {
  std::vector<memory_node> scratch;
  const auto fits = [&](std::uint64_t m) {
    scratch = nodes;
    return !memory_planner(scratch, m, flow::block_size(std::nullopt, fixed_block, m), threads).assign();
  };
  constexpr std::uint64_t most = ~std::uint64_t{0};
  std::uint64_t lo = memory; // fails (or is where the search starts)
  while (lo < most) {
    // The last budget with the block size of lo + 1 (all of them when blocks are fixed).
    std::uint64_t top = most;
    if (!fixed_block) {
      const std::uint64_t b = block_for_memory(lo + 1);
      if (b < (std::uint64_t{4} << 20)) top = 256 * b - 1; // block_for_memory doubles at M / 128 = 2b
    }
    if (fits(top)) {
      std::uint64_t hi = top; // fits; lo does not (or belongs to the range below)
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? hi : lo) = mid;
      }
      return hi;
    }
    lo = top;
  }
  return 0;
}

} // namespace flow::plan
