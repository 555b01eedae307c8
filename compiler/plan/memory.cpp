// Memory assignment and I/O volume: splits the budget among the nodes of each phase,
// preferring the split that saves a merge pass, and computes what every node reads and
// writes — pipelined as planned, and as if every stream were materialized.
#include "plan/memory.hpp"

#include "flow/containers/pq/plan.hpp"

#include <algorithm>
#include <cmath>

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
    : plan_(plan), diags_(diags), file_(file), sort_{plan.blockBytes} {}

uint64_t MemoryPlanner::minimum(const Node& n) const {
  const uint64_t B = plan_.blockBytes;
  switch (n.kind) {
  case Node::SortRuns: return 4 * B;                  // three one-block runs and the reserve
  case Node::SortMerge: return sort_.merge_bytes(2);   // fan-in two
  case Node::Queue: return queueMinimum(n);
  default: return isBuffered(n.kind) ? 2 * B : 0;
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
  auto optimisticRuns = [&](const Node& creator) {
    uint64_t p = static_cast<uint64_t>(creator.phase);
    uint64_t room = M - fixed[static_cast<int>(p)] - minimums[static_cast<int>(p)] + minimum(creator);
    double bytes = creator.elements * creator.elementBytes;
    if (bytes <= static_cast<double>(sort_.in_memory_capacity(room, creator.elementBytes))) return uint64_t{0};
    uint64_t run = std::max<uint64_t>(sort_.run_bytes(room, creator.elementBytes), plan_.blockBytes);
    return static_cast<uint64_t>(std::ceil(bytes / static_cast<double>(run)));
  };
  auto mergeIo = [&](const Node& merge, uint64_t memory) {
    const Node& creator = plan_.nodes[merge.partner];
    uint64_t runs = optimisticRuns(creator);
    if (runs == 0) return 0.0;
    uint64_t k = std::max<uint64_t>(2, sort_.fan_in(memory));
    int passes = 1;
    for (uint64_t r = runs; r > k; r = (r + k - 1) / k) ++passes;
    return 2.0 * passes * creator.elements * creator.elementBytes;
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
    uint64_t runMinimums = runs.size() * minimum(plan_.nodes[runs.empty() ? 0 : runs[0]]);
    for (size_t i = 0; i < merges.size(); ++i) {
      Node& merge = plan_.nodes[merges[i]];
      Node& creator = plan_.nodes[merge.partner];
      uint64_t otherMerges = (merges.size() - 1 - i) * sort_.merge_bytes(2);
      uint64_t room = available - runMinimums - otherMerges;
      uint64_t bytes = static_cast<uint64_t>(std::ceil(creator.elements * creator.elementBytes));
      // In memory if the run formation held everything and this phase can keep it.
      if (bytes <= sort_.in_memory_capacity(creator.memoryBytes, creator.elementBytes) &&
          sort_.in_memory_bytes(bytes) <= room) {
        merge.inMemory = creator.inMemory = true;
        merge.memoryBytes = sort_.in_memory_bytes(bytes);
      } else {
        uint64_t runBytes = std::max<uint64_t>(sort_.run_bytes(creator.memoryBytes, creator.elementBytes), plan_.blockBytes);
        creator.runs = std::max<uint64_t>(1, (bytes + runBytes - 1) / runBytes);
        merge.runs = creator.runs;
        merge.memoryBytes = std::min(room, std::max(sort_.merge_bytes(2), sort_.merge_bytes(creator.runs)));
      }
      available -= merge.memoryBytes;
    }
    double volume = 0;
    for (int id : runs) volume += std::max(1.0, plan_.nodes[id].elements * plan_.nodes[id].elementBytes);
    uint64_t share = available;
    for (int id : runs) {
      Node& n = plan_.nodes[id];
      double weight = std::max(1.0, n.elements * n.elementBytes) / volume;
      uint64_t bytes = static_cast<uint64_t>(std::ceil(n.elements * n.elementBytes));
      // Everything in memory: the smallest budget whose in-memory capacity holds the data.
      uint64_t want = plan_.blockBytes;
      while (want < plan_.memoryBytes && sort_.in_memory_capacity(want, n.elementBytes) < bytes) want += plan_.blockBytes;
      uint64_t given = static_cast<uint64_t>(share * weight) / plan_.blockBytes * plan_.blockBytes;
      n.memoryBytes = std::max(minimum(n), std::min(want, given));
      available -= std::min(available, n.memoryBytes);
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
      if (!n.inMemory) n.writeBytes = bytes;
      break;
    case Node::SortMerge: {
      if (n.inMemory) break;
      const Node& creator = plan_.nodes[n.partner];
      uint64_t k = std::max<uint64_t>(2, sort_.fan_in(n.memoryBytes));
      n.fanIn = k;
      // Merge passes over the data on disk: the final merge reads the runs; every
      // intermediate pass reads and writes the data once more.
      int passes = 1;
      for (uint64_t r = creator.runs; r > k; r = (r + k - 1) / k) ++passes;
      n.passes = plan_.nodes[n.partner].passes = passes;
      n.readBytes = bytes * passes;
      n.writeBytes = bytes * (passes - 1);
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
