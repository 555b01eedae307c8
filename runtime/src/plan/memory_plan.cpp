// The memory planner (flow/plan/memory_plan.hpp), compiled once: flowc's planner and
// every generated program's memory plan call it.
#include "flow/plan/memory_plan.hpp"

#include "flow/plan/reduce_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
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
  case memory_role::hash_join: return "hash_join";
  case memory_role::reserved: return "reserved";
  case memory_role::cache: return "cache";
  case memory_role::batches: return "batches";
  }
  return "none"; // not reached: -Wswitch names a role left out above
}

const char* name(io_rule rule) {
  switch (rule) {
  case io_rule::none: return "none";
  case io_rule::reads_file: return "reads_file";
  case io_rule::reads_store: return "reads_store";
  case io_rule::writes_file: return "writes_file";
  case io_rule::writes_store: return "writes_store";
  case io_rule::sort_runs: return "sort_runs";
  case io_rule::sort_merge: return "sort_merge";
  case io_rule::reduce_runs: return "reduce_runs";
  case io_rule::reduce_merge: return "reduce_merge";
  case io_rule::queue: return "queue";
  case io_rule::block_accesses: return "block_accesses";
  case io_rule::hash_join: return "hash_join";
  }
  return "none"; // not reached: -Wswitch names a rule left out above
}

const char* name(reduce_hashing hashing) {
  switch (hashing) {
  case reduce_hashing::no: return "no";
  case reduce_hashing::if_fits: return "if_fits";
  case reduce_hashing::yes: return "yes";
  }
  return "no"; // not reached: -Wswitch names a choice left out above
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
  case memory_role::hash_join: return sat_add(hash_join_min_memory(block_), hash_join_probe(n));
  case memory_role::sort_runs: { // one run, and the metadata of the runs its count writes
    std::uint64_t sorts = std::max(run_memory_for(setup(n), 0), run_memory_for_metadata(setup(n), elements(n), distinct(n)));
    // Spread over the ranks: the sample sort's buffers beside that.
    if (n.spread) sorts = sat_add(sorts, sample_sort_buffers(block_));
    if (n.io != io_rule::reduce_runs || n.hashing == reduce_hashing::no) return sorts;
    // A reduce that may hash: the least budget of its table (the program builds it with
    // what it gets, and a table below that budget stops the program).
    const std::uint64_t expected = elements(nodes_[static_cast<std::size_t>(n.partner)]);
    return std::max(sorts, smallest_budget([&](std::uint64_t m) { return hash_reduce(setup(n), m, expected).slots > 0; }));
  }
  case memory_role::sort_merge: {
    // Four runs at once, and at least 16 with their first elements on disk: run formation
    // given far more data than planned merges its runs down to what its merge takes
    // (runs_a_merge_takes), and the fewer those are, the more often it merges.
    const sort_setup s = setup(n);
    const sort_geometry g = sort_block(s, memory_);
    return std::max(merge_memory_for(s, g, 4, 4),
                    smallest_budget([&](std::uint64_t m) { return runs_a_merge_takes(s, g, m) >= 16; }, g.bytes));
  }
  case memory_role::queue: return queue_minimum(n);
  case memory_role::reserved: return reserved_bytes(n);
  case memory_role::cache: return 2 * block_;
  case memory_role::batches: return stage_batch_bytes(n.element_bytes, block_, n.batch_outputs);
  default: return 0;
  }
}

sort_cost memory_planner::sort(const memory_node& n) const {
  const memory_node& runs = n.role == memory_role::sort_runs ? n : nodes_[static_cast<std::size_t>(n.partner)];
  const memory_node& merge = nodes_[static_cast<std::size_t>(runs.partner)];
  return sort_estimate(setup(runs), elements(runs), runs.memory, merge.memory);
}

node_cost memory_planner::cost(std::size_t node) const {
  const memory_node& n = nodes_[node];
  node_cost c;
  const double bytes = n.elements * static_cast<double>(n.element_bytes);
  // No default: a rule added to io_rule without its price here is a -Wswitch error.
  switch (n.io) {
  case io_rule::none: break;
  case io_rule::reads_file:
  case io_rule::reads_store: c.read_bytes = bytes; break;
  case io_rule::writes_file: c.write_bytes = bytes; break;
  case io_rule::writes_store: // its blocks stay on the temporary disk until it is read for the last time
    c.write_bytes = c.temp_disk_bytes = bytes;
    break;
  case io_rule::sort_runs:
  case io_rule::sort_merge:
    c.sort = sort(n);
    c.passes = c.sort.passes;
    if (n.io == io_rule::sort_runs) {
      c.write_bytes = c.temp_disk_bytes = static_cast<double>(c.sort.runs_write); // whole blocks
    } else {
      // The final merge reads the runs; intermediate passes merge the smallest runs,
      // reading and writing them once more. The disk holds the runs, and a second level
      // while it is merged. (All 0 when the sort stays in memory.)
      c.fan_in = c.sort.fan_in;
      c.read_bytes = static_cast<double>(c.sort.merge_read);
      c.write_bytes = static_cast<double>(c.sort.merge_write);
      c.temp_disk_bytes = static_cast<double>(c.sort.disk_peak);
    }
    break;
  case io_rule::reduce_runs:
  case io_rule::reduce_merge: {
    // Equal keys are combined as runs form and as they merge, so the I/O shrinks with the
    // distinct keys (the merge's count); where a hash table holds them all the reduce
    // writes nothing.
    const memory_node& runs = n.io == io_rule::reduce_runs ? n : nodes_[static_cast<std::size_t>(n.partner)];
    const memory_node& merge = nodes_[static_cast<std::size_t>(runs.partner)];
    const reduce_cost r = reduce_estimate(setup(runs), elements(runs), elements(merge), runs.memory, merge.memory);
    c.sort = r.sort;
    c.hash_capacity = r.hash_capacity;
    c.hash_partitions = r.hash_partitions;
    switch (runs.hashing) {
    case reduce_hashing::no: c.hashed = false; break;
    case reduce_hashing::if_fits: c.hashed = r.hash_in_memory; break;
    case reduce_hashing::yes: c.hashed = true; break;
    }
    // A hash table that spills writes sorted runs of its capacity each time it fills,
    // merged like the combining sort's: priced as that sort (an estimate, not a bound).
    if ((c.hashed && r.hash_in_memory) || r.sort.in_memory) break;
    if (n.io == io_rule::reduce_runs) {
      c.write_bytes = c.temp_disk_bytes = static_cast<double>(r.sort.runs_write);
    } else {
      c.passes = r.sort.passes;
      c.fan_in = r.sort.fan_in;
      c.read_bytes = static_cast<double>(r.sort.merge_read);
      c.write_bytes = static_cast<double>(r.sort.merge_write);
      c.temp_disk_bytes = static_cast<double>(r.sort.disk_peak);
    }
    break;
  }
  case io_rule::queue: {
    // Configured for the pushes the program plans with (adopt: the static plan's); its
    // I/O is the queue's own model (pq_config::io) for its pushes and the items it holds
    // at once: all of them, unless a calibration measured its peak. Half of what it moves
    // is read, half written; what it writes stays on disk while it lives (a bound).
    const auto cfg = containers::plan_priority_queue(n.memory, static_cast<std::uint64_t>(n.configured_for.value_or(n.elements)),
                                                     n.element_bytes, block_);
    c.held = n.peak_fraction > 0 ? std::max(1.0, std::ceil(n.elements * n.peak_fraction)) : n.elements;
    const auto io = cfg.io(static_cast<std::uint64_t>(n.elements), static_cast<std::uint64_t>(c.held));
    c.read_bytes = c.write_bytes = c.temp_disk_bytes = static_cast<double>(io.bytes) / 2;
    c.passes = io.levels;
    c.queue = cfg;
    break;
  }
  case io_rule::block_accesses:
    // An upper bound: every access misses the cache and reads a block, every write
    // writes one back.
    c.read_bytes = n.accesses * static_cast<double>(block_);
    c.write_bytes = n.writes * static_cast<double>(block_);
    break;
  case io_rule::hash_join: {
    // Nothing while the table holds the build input; else the rest of the build input
    // written and read once, the probe input written once and read by every later pass.
    const memory_node& build = nodes_[static_cast<std::size_t>(n.partner)];
    const memory_node& probe = nodes_[static_cast<std::size_t>(n.probe)];
    const hash_join_io h = hash_join_cost(elements(build), n.build_element_bytes, elements(probe), n.probe_element_bytes,
                                          n.memory - std::min(n.memory, hash_join_probe(n)), block_);
    c.passes = h.passes > 1 ? static_cast<unsigned>(std::min<std::uint64_t>(h.passes, ~0u)) : 0; // 0: in memory
    c.write_bytes = c.temp_disk_bytes = static_cast<double>(h.write_bytes);
    c.read_bytes = static_cast<double>(h.read_bytes);
    break;
  }
  }
  return c;
}

void memory_planner::adopt(const memory_planner& program) {
  if (program.nodes_.size() != nodes_.size()) throw std::logic_error("memory_planner: adopt() from a plan of other nodes");
  for (std::size_t i = 0; i < nodes_.size(); ++i) nodes_[i].memory = program.nodes_[i].memory;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    memory_node& n = nodes_[i];
    const memory_node& theirs = program.nodes_[i];
    if (n.io == io_rule::queue) n.configured_for = theirs.configured_for.value_or(theirs.elements);
    // The code generator chose the hash table by the program's plan, and a program
    // prices that choice with its own counts.
    if (n.io == io_rule::reduce_runs) n.hashing = program.cost(i).hashed ? reduce_hashing::yes : reduce_hashing::no;
    if (n.io == io_rule::sort_runs || n.io == io_rule::sort_merge) {
      const sort_cost c = sort(n); // the runtime decides in memory or not by the real count
      n.in_memory = c.in_memory;
      n.runs = c.runs;
    }
  }
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
    // A merge in the queue's phases keeps blocks to read ahead beyond its minimum: its I/O
    // volume is the same without them, but it waits for each block (MIS with 8-byte
    // events at 256 MiB: the merge of 4 runs that the queue left 9 blocks waited 0.44 s of
    // a 1.80 s phase; left 21, 0.02 s of 1.06 s).
    for (int p : q.live_phases) {
      std::uint64_t ahead = 0;
      for (int id : nodes_of[p])
        if (node(id).role == memory_role::sort_merge) ahead = sat_add(ahead, merge_read_ahead());
      const std::uint64_t room = M - fixed[p] - minimums[p] + minimum(q);
      hi = std::min(hi, room > ahead ? room - ahead : 0);
    }
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
    std::vector<int> hash_joins; // served after the merges, before run formation
    std::uint64_t hash_join_minimums = 0;
    for (int id : ids)
      if (node(id).role == memory_role::hash_join) {
        hash_joins.push_back(id);
        hash_join_minimums = sat_add(hash_join_minimums, minimum(node(id)));
      }
    const std::uint64_t later_minimums = sat_add(run_minimums, hash_join_minimums);
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
    if (sat_add(later_minimums, merge_needs) > available)
      return memory_shortfall{p, sat_add(fixed[p], sat_add(later_minimums, merge_needs))};
    for (int id : merges) {
      memory_node& merge = node(id);
      memory_node& creator = node(merge.partner);
      merge_needs -= need[id];
      const std::uint64_t room = available - later_minimums - merge_needs;
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
    // Hash joins next: the table of their build input if the phase has it (beside the
    // minimums of the run formations and the other hash joins), else what it has: a
    // table that holds the build input saves a pass over the probe input per table it
    // takes, more than run formation gains from the same memory.
    for (int id : hash_joins) {
      memory_node& j = node(id);
      const memory_node& build = node(j.partner);
      hash_join_minimums -= minimum(j);
      const std::uint64_t room = available - run_minimums - hash_join_minimums;
      const std::uint64_t need = sat_add(hash_join_memory_for(elements(build), j.build_element_bytes, block_),
                                         hash_join_probe(j));
      const std::uint64_t want = sat_mul(need / block_ + (need % block_ != 0 ? 1 : 0), block_); // whole blocks
      j.memory = std::max(minimum(j), std::min(room / block_ * block_, want));
      available -= j.memory;
    }
    // Run formations share what is left by data volume, each at least its minimum. Where
    // the minimums of those whose share is below it do not fit beside the others' shares
    // (a sort of unknown count has almost no volume, so a minimum of its own), those get
    // their minimums and the others share what is left: the phase stays within the budget.
    const auto volume_of = [&](int id) {
      return std::max(1.0, node(id).elements * static_cast<double>(node(id).element_bytes));
    };
    std::set<int> at_minimum; // run formations given their minimum, not a share
    for (bool fits = false; !fits;) {
      std::uint64_t share = available, total = 0;
      double volume = 0;
      for (int id : runs) {
        if (at_minimum.count(id)) share -= std::min(share, minimum(node(id)));
        else volume += volume_of(id);
      }
      for (int id : runs) {
        memory_node& n = node(id);
        // Everything in memory: the smallest budget whose in-memory capacity holds the data.
        const std::uint64_t want = std::min(M, run_memory_for(setup(n), elements(n)));
        const double weighted = at_minimum.count(id) ? 0 : static_cast<double>(share) * volume_of(id) / volume;
        const std::uint64_t given = static_cast<std::uint64_t>(weighted) / block_ * block_;
        n.memory = std::max(minimum(n), std::min(want, given));
        total = sat_add(total, n.memory);
      }
      fits = total <= available;
      if (!fits) { // the run formations whose share is below their minimum take it
        const std::size_t before = at_minimum.size();
        for (int id : runs)
          if (!at_minimum.count(id) &&
              static_cast<double>(share) * volume_of(id) / volume < static_cast<double>(minimum(node(id)) + block_))
            at_minimum.insert(id);
        fits = at_minimum.size() == before; // nothing more to give up (the minimums fit: checked above)
      }
    }
    for (int id : runs) available -= std::min(available, node(id).memory);
    // What is still free goes to the run formations, the merges and the joins, in equal
    // shares of whole blocks. A count is an estimate (or unknown: a file without `~ N`,
    // a stream after a for stage), and a sort that gets more than its estimate forms
    // runs of the size its memory allows: planned for 27 records of 256 bytes, it had
    // 46 KiB of a 1 GiB budget and its runs' metadata outgrew its reserve at 300. With a
    // share of what its phase leaves, its runs are as long as the phase allows; a merge
    // keeps one pass, a join larger groups of equal keys in memory. None of them holds
    // its share past its phase (the runtime allocates the slots of a run formation, but
    // pages are touched only as data arrives, and an in-memory result is trimmed to its
    // data).
    std::vector<int> joins;
    for (int id : ids)
      if (node(id).role == memory_role::join || node(id).role == memory_role::hash_join) joins.push_back(id);
    const std::size_t takers = runs.size() + merges.size() + joins.size();
    if (takers > 0) {
      const std::uint64_t each = available / takers / block_ * block_;
      for (int id : runs) node(id).memory += each;
      for (int id : merges) node(id).memory += each;
      for (int id : joins) node(id).memory += each;
    }
  }
  return std::nullopt;
}

std::optional<memory_shortfall> shortfall_at(const std::vector<memory_node>& nodes, std::uint64_t memory,
                                             std::uint64_t block) {
  std::vector<memory_node> scratch = nodes;
  return memory_planner(scratch, memory, block).assign();
}

std::uint64_t least_budget(const std::vector<memory_node>& nodes, std::uint64_t memory,
                           std::optional<std::uint64_t> fixed_block) {
  const auto fits = [&](std::uint64_t m) {
    return !shortfall_at(nodes, m, flow::block_size(std::nullopt, fixed_block, m));
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
