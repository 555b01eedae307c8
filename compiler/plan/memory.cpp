// Memory assignment and I/O volume: splits the budget among the nodes of each phase,
// preferring the split that saves a merge pass, and computes what every node reads and
// writes — pipelined as planned, and as if every stream were materialized.
#include "plan/memory.hpp"

#include "flow/containers/pq/plan.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace flow::plan {

namespace {

bool isFileSource(Node::Kind k) {
  return k == Node::ReadFile || k == Node::ReadText || k == Node::ScanVector || k == Node::Reread;
}
bool isSink(Node::Kind k) {
  return k == Node::WriteFile || k == Node::WriteText || k == Node::VectorBuild || k == Node::Materialize;
}
bool isBuffered(Node::Kind k) { return isFileSource(k) || isSink(k) || k == Node::VectorPush; }
bool isFlexible(Node::Kind k) { return k == Node::SortRuns || k == Node::SortMerge || k == Node::Queue; }

} // namespace

MemoryPlanner::MemoryPlanner(Plan& plan, DiagnosticEngine& diags, const SourceFile* file)
    : plan_(plan), diags_(diags), file_(file), threads_(std::max(1u, std::thread::hardware_concurrency())) {}

sort_setup MemoryPlanner::sortSetup(const Node& n) const {
  return {.element_bytes = n.elementBytes, .keyed = n.keyed, .block_bytes = plan_.blockBytes, .threads = threads_};
}

namespace {
uint64_t elementsOf(const Node& n) { return static_cast<uint64_t>(std::llround(std::max(0.0, n.elements))); }
/// Memory the merge phase needs to hold a sort done in memory: the data and a reserve.
uint64_t inMemoryBytes(double bytes) {
  auto b = static_cast<uint64_t>(bytes);
  return b + std::max<uint64_t>(b / 16, 4096);
}
} // namespace

sort_cost MemoryPlanner::sortCost(const Node& n) const {
  const Node& runs = n.kind == Node::SortRuns ? n : plan_.nodes[n.partner];
  const Node& merge = plan_.nodes[runs.partner];
  return sort_estimate(sortSetup(runs), elementsOf(runs), runs.memoryBytes, merge.memoryBytes);
}

uint64_t MemoryPlanner::minimum(const Node& n) const {
  switch (n.kind) {
  case Node::SortRuns: return run_memory_for(sortSetup(n), 0); // one run of one block
  case Node::SortMerge: { // fan-in four: intermediate passes take two (two buffers write)
    const sort_setup s = sortSetup(n);
    return merge_memory_for(s, sort_block(s, plan_.memoryBytes), 4, 4);
  }
  case Node::Queue: return queueMinimum(n);
  default: return isBuffered(n.kind) ? 2 * plan_.blockBytes : 0;
  }
}

uint64_t MemoryPlanner::queueMinimum(const Node& n) const {
  // The smallest budget plan_priority_queue accepts, found by doubling from 1 MiB.
  for (uint64_t m = 1 << 20; m <= plan_.memoryBytes; m *= 2)
    if (containers::plan_priority_queue(m, 0, n.elementBytes, plan_.blockBytes).feasible) return m;
  return plan_.memoryBytes + 1;
}

uint64_t MemoryPlanner::queueWant(const Node& n) const {
  // Enough to keep every item internal if that is affordable, else as much as allowed.
  uint64_t items = static_cast<uint64_t>(n.elements);
  for (uint64_t m = queueMinimum(n); m <= plan_.memoryBytes; m = m * 5 / 4) {
    auto cfg = containers::plan_priority_queue(m, items, n.elementBytes, plan_.blockBytes);
    if (cfg.feasible && cfg.flush_items >= items) return m;
  }
  return plan_.memoryBytes;
}

bool MemoryPlanner::assign() {
  const uint64_t M = plan_.memoryBytes;
  std::map<int, std::vector<int>> nodesOf;
  for (Node& n : plan_.nodes) {
    if (n.kind == Node::Queue) {
      for (int p : n.livePhases) nodesOf[p].push_back(n.id);
    } else {
      nodesOf[n.phase].push_back(n.id);
    }
  }
  // 1. Buffers of files, vectors and streams: fixed. Check that every phase can hold
  //    the minimum of everything in it.
  std::map<int, uint64_t> fixed, minimums;
  for (auto& [p, ids] : nodesOf) {
    for (int id : ids) {
      Node& n = plan_.nodes[id];
      if (isFlexible(n.kind)) minimums[p] += minimum(n);
      else {
        n.memoryBytes = minimum(n);
        fixed[p] += n.memoryBytes;
      }
    }
    if (fixed[p] + minimums[p] > M) {
      reportTooSmall(p, ids, fixed[p] + minimums[p]);
      return false;
    }
  }
  // 2. Queues keep one budget for their whole life. Of the budgets that fit every phase
  //    the queue lives in, take the one with the least I/O in total: the queue's own and
  //    that of the merges it shares phases with (a merge squeezed by the queue may need
  //    another pass over all its data, which usually costs more than the queue saves).
  auto mergeIo = [&](const Node& merge, uint64_t memory) {
    // with the most run formation could get in its phase: the fewest runs
    const Node& creator = plan_.nodes[merge.partner];
    const int p = creator.phase;
    const uint64_t room = M - fixed[p] - minimums[p] + minimum(creator);
    return static_cast<double>(sort_estimate(sortSetup(creator), elementsOf(creator), room, memory).io_bytes());
  };
  for (Node& q : plan_.nodes) {
    if (q.kind != Node::Queue || q.livePhases.empty()) continue;
    uint64_t lo = minimum(q), hi = queueWant(q);
    for (int p : q.livePhases) hi = std::min(hi, M - fixed[p] - minimums[p] + minimum(q));
    hi = std::max(hi, lo);
    double bestIo = -1;
    uint64_t best = lo;
    for (uint64_t c = lo;; c = std::min(hi, std::max(c + plan_.blockBytes, c * 9 / 8))) {
      double io = static_cast<double>(containers::plan_priority_queue(c, static_cast<uint64_t>(q.elements), q.elementBytes,
                                                                      plan_.blockBytes)
                                          .io_bytes(static_cast<uint64_t>(q.elements)));
      for (int p : q.livePhases)
        for (int id : nodesOf[p])
          if (plan_.nodes[id].kind == Node::SortMerge) {
            uint64_t spare = M - fixed[p] - minimums[p] + minimum(q) + minimum(plan_.nodes[id]) - c;
            io += mergeIo(plan_.nodes[id], spare);
          }
      if (bestIo < 0 || io < bestIo || (io == bestIo && c > best)) {
        bestIo = io;
        best = c;
      }
      if (c >= hi) break;
    }
    q.memoryBytes = best;
    for (int p : q.livePhases) {
      minimums[p] -= minimum(q);
      fixed[p] += q.memoryBytes;
    }
  }
  // 3. Phase by phase: merges first (their runs are known by now; giving a merge its full
  //    fan-in saves a pass), then run formation shares the rest by data volume.
  for (auto& [p, ids] : nodesOf) {
    uint64_t available = M - fixed[p];
    std::vector<int> merges, runs;
    for (int id : ids) {
      if (plan_.nodes[id].kind == Node::SortMerge) merges.push_back(id);
      if (plan_.nodes[id].kind == Node::SortRuns) runs.push_back(id);
    }
    uint64_t runMinimums = 0;
    for (int id : runs) runMinimums += minimum(plan_.nodes[id]);
    uint64_t mergeMinimums = 0;
    for (int id : merges) mergeMinimums += minimum(plan_.nodes[id]);
    for (int id : merges) {
      Node& merge = plan_.nodes[id];
      Node& creator = plan_.nodes[merge.partner];
      mergeMinimums -= minimum(merge);
      const uint64_t room = available - runMinimums - mergeMinimums;
      // The runtime sorts in memory whenever run formation held everything; the merge
      // phase then keeps the data.
      const sort_setup s = sortSetup(creator);
      const run_formation_shape rf = run_formation(s, creator.memoryBytes);
      if (elementsOf(creator) <= rf.in_memory_elements()) {
        merge.inMemory = creator.inMemory = true;
        merge.memoryBytes = std::min(room, inMemoryBytes(creator.elements * creator.elementBytes));
      } else {
        const uint64_t n = elementsOf(creator);
        creator.runs = merge.runs = (n + rf.run_elements - 1) / rf.run_elements;
        const uint64_t blocks = (n + rf.geometry.elements - 1) / rf.geometry.elements + creator.runs;
        merge.memoryBytes = std::min(room, std::max(minimum(merge), merge_memory_for(s, rf.geometry, creator.runs, blocks)));
      }
      available -= merge.memoryBytes;
    }
    double volume = 0;
    for (int id : runs) volume += std::max(1.0, plan_.nodes[id].elements * plan_.nodes[id].elementBytes);
    uint64_t share = available;
    for (int id : runs) {
      Node& n = plan_.nodes[id];
      double weight = std::max(1.0, n.elements * n.elementBytes) / volume;
      // Everything in memory: the smallest budget whose in-memory capacity holds the data.
      const uint64_t want = std::min(plan_.memoryBytes, run_memory_for(sortSetup(n), elementsOf(n)));
      uint64_t given = static_cast<uint64_t>(share * weight) / plan_.blockBytes * plan_.blockBytes;
      n.memoryBytes = std::max(minimum(n), std::min(want, given));
      available -= std::min(available, n.memoryBytes);
    }
    // What is left goes to the merges: a merge holds nothing past its phase, and a wider
    // fan-in keeps one pass when the program runs on more data than planned.
    for (int id : merges) {
      const uint64_t extra = available / merges.size() / plan_.blockBytes * plan_.blockBytes;
      plan_.nodes[id].memoryBytes += extra;
    }
  }
  return true;
}

void MemoryPlanner::reportTooSmall(int phase, const std::vector<int>& ids, uint64_t needed) {
  std::string parts;
  for (int id : ids) {
    const Node& n = plan_.nodes[id];
    uint64_t m = isFlexible(n.kind) ? minimum(n) : n.memoryBytes;
    if (m == 0) continue;
    parts += (parts.empty() ? "" : ", ") + n.name + " " + formatBytes(static_cast<double>(m));
  }
  const Phase* ph = nullptr;
  for (const Phase& x : plan_.phases)
    if (x.id == phase) ph = &x;
  diags_.error(file_, ph ? ph->loc : SourceLoc{},
               "the plan does not fit the memory budget: phase " + std::to_string(phase) +
                   (ph ? " (" + ph->label + ")" : "") + " needs at least " + formatBytes(static_cast<double>(needed)) +
                   " (" + parts + ") with blocks of " + formatBytes(static_cast<double>(plan_.blockBytes)) +
                   ", but the budget is " + formatBytes(static_cast<double>(plan_.memoryBytes)) +
                   "; raise 'memory' (or --memory) or lower 'block'");
}

void MemoryPlanner::computeIo() {
  for (Node& n : plan_.nodes) {
    double bytes = n.elements * n.elementBytes;
    switch (n.kind) {
    case Node::ReadFile:
    case Node::ReadText:
    case Node::ScanVector:
    case Node::Reread: n.readBytes = bytes; break;
    case Node::WriteFile:
    case Node::WriteText:
    case Node::VectorBuild:
    case Node::Materialize:
    case Node::VectorPush: n.writeBytes = bytes; break;
    case Node::SortRuns:
      n.writeBytes = static_cast<double>(sortCost(n).runs_write); // whole blocks
      break;
    case Node::SortMerge: {
      // The final merge reads the runs; intermediate passes merge the smallest runs,
      // reading and writing them once more.
      const sort_cost c = sortCost(n);
      if (c.in_memory) break;
      n.fanIn = c.fan_in;
      n.passes = plan_.nodes[n.partner].passes = static_cast<int>(c.passes);
      n.readBytes = static_cast<double>(c.merge_read);
      n.writeBytes = static_cast<double>(c.merge_write);
      break;
    }
    case Node::Queue: {
      auto cfg = containers::plan_priority_queue(n.memoryBytes, static_cast<uint64_t>(n.elements), n.elementBytes,
                                                 plan_.blockBytes);
      double io = static_cast<double>(cfg.io_bytes(static_cast<uint64_t>(n.elements)));
      n.readBytes = n.writeBytes = io / 2;
      n.passes = static_cast<int>(cfg.external_levels);
      break;
    }
    default: break;
    }
  }
  // As if every stream were materialized: each edge of the graph is a file, written once
  // by its producer (unless the producer is a file already) and read by each consumer
  // (unless the consumer is the sink that names that file).
  for (Node& n : plan_.nodes) {
    n.materializedRead = n.materializedWrite = 0;
    if (n.kind == Node::Queue || n.kind == Node::VectorPush) {
      n.materializedRead = n.readBytes;
      n.materializedWrite = n.writeBytes;
      continue;
    }
    if (isFileSource(n.kind) || n.kind == Node::Materialize) continue;
    if (isSink(n.kind)) {
      const Node& in = plan_.nodes[n.inputs[0]];
      if (isFileSource(in.kind)) n.materializedRead = n.materializedWrite = n.elements * n.elementBytes;
      continue;
    }
    for (int i : n.inputs) {
      const Node& in = plan_.nodes[i];
      if (n.kind == Node::SortMerge) continue; // reads its runs, below
      n.materializedRead += in.elements * in.elementBytes;
    }
    double bytes = n.elements * n.elementBytes;
    bool hasConsumer = false;
    for (const Node& other : plan_.nodes)
      for (int i : other.inputs) hasConsumer = hasConsumer || i == n.id;
    if (n.kind == Node::SortRuns) {
      n.materializedWrite = bytes; // the runs
    } else if (n.kind == Node::SortMerge) {
      int passes = std::max(1, n.passes);
      n.materializedRead = bytes * passes;
      n.materializedWrite = bytes * (passes - 1) + (hasConsumer ? bytes : 0);
    } else if (hasConsumer) {
      n.materializedWrite = bytes;
    }
  }
}

void MemoryPlanner::totals() {
  plan_.total = {};
  plan_.materialized = {};
  for (Phase& ph : plan_.phases) {
    ph.nodes.clear();
    ph.memoryBytes = 0;
    ph.readBytes = ph.writeBytes = 0;
  }
  std::map<int, Phase*> phaseById;
  for (Phase& ph : plan_.phases) phaseById[ph.id] = &ph;
  for (const Node& n : plan_.nodes) {
    plan_.total.readBytes += n.readBytes;
    plan_.total.writeBytes += n.writeBytes;
    plan_.materialized.readBytes += n.materializedRead;
    plan_.materialized.writeBytes += n.materializedWrite;
    std::vector<int> phases = n.kind == Node::Queue ? n.livePhases : std::vector<int>{n.phase};
    for (int p : phases) {
      auto it = phaseById.find(p);
      if (it == phaseById.end()) continue;
      it->second->nodes.push_back(n.id);
      it->second->memoryBytes += n.memoryBytes;
    }
    if (auto it = phaseById.find(n.phase); it != phaseById.end()) {
      it->second->readBytes += n.readBytes;
      it->second->writeBytes += n.writeBytes;
    }
  }
}

} // namespace flow::plan
