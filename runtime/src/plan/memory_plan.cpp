// The memory planner (flow/plan/memory_plan.hpp), compiled once: flowc's planner and
// every generated program's memory plan call it.
#include "flow/plan/memory_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace flow::plan {

const char* name(memory_role role) {
  switch (role) {
  case memory_role::none: return "none";
  case memory_role::buffer: return "buffer";
  case memory_role::sort_runs: return "sort_runs";
  case memory_role::sort_merge: return "sort_merge";
  case memory_role::queue: return "queue";
  case memory_role::join: return "join";
  case memory_role::reserved: return "reserved";
  case memory_role::cache: return "cache";
  }
  return "none"; // not reached: -Wswitch names a role left out above
}

too_many_elements::too_many_elements(int phase, double elements)
    : std::length_error("phase " + std::to_string(phase) + " would handle " + format(elements) +
                        " elements, more than 2^63"),
      phase_(phase), elements_(elements) {}

std::string too_many_elements::format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

const memory_node* memory_planner::too_many(const std::vector<memory_node>& nodes) {
  for (const memory_node& n : nodes)
    if (n.role != memory_role::none && !(n.elements <= static_cast<double>(max_elements))) return &n;
  return nullptr;
}

std::uint64_t memory_planner::minimum(const memory_node& n) const {
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

sort_cost memory_planner::sort(const memory_node& n) const {
  const memory_node& runs = n.role == memory_role::sort_runs ? n : nodes_[static_cast<std::size_t>(n.partner)];
  const memory_node& merge = nodes_[static_cast<std::size_t>(runs.partner)];
  return sort_estimate(setup(runs), elements(runs), runs.memory, merge.memory);
}

std::uint64_t memory_planner::queue_minimum(const memory_node& n) const {
  // The smallest budget plan_priority_queue accepts, found by doubling from 1 MiB: not
  // bounded by this budget, so that a budget too small names what the queue needs.
  for (std::uint64_t m = 1 << 20;; m = sat_mul(m, 2)) {
    if (containers::plan_priority_queue(m, 0, n.element_bytes, block_).feasible) return m;
    if (m == saturated) return saturated;
  }
}

std::uint64_t memory_planner::queue_want(const memory_node& n) const {
  // Enough to keep every item internal if that is affordable, else as much as allowed.
  const auto items = elements(n);
  for (std::uint64_t m = queue_minimum(n); m <= memory_; m = sat_add(m, m / 4)) {
    auto cfg = containers::plan_priority_queue(m, items, n.element_bytes, block_);
    if (cfg.feasible && cfg.flush_items >= items) return m;
    if (m == saturated) break;
  }
  return memory_;
}

std::optional<memory_shortfall> memory_planner::assign() {
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

std::uint64_t least_budget(const std::vector<memory_node>& nodes, std::uint64_t memory,
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
