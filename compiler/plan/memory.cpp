// Memory assignment and I/O volume: splits the budget among the nodes of each phase,
// preferring the split that saves a merge pass, and computes what every node reads and
// writes — pipelined as planned, and as if every stream were materialized.
#include "plan/memory.hpp"

#include "flow/defaults.hpp"
#include "flow/format.hpp"
#include "flow/plan/reduce_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <optional>
#include <thread>

namespace flow::plan {

namespace {

/// The threads a plan assumes: the machine's, as programs default to.
unsigned planningThreads() { return flow::hardware_threads(); }

} // namespace

MemoryPlanner::MemoryPlanner(Plan& plan, DiagnosticEngine& diags, const SourceFile* file)
    : plan_(plan), diags_(diags), file_(file) {
  for (const Node& n : plan_.nodes)
    nodes_.push_back({.role = n.traits().memory, .phase = n.phase, .live_phases = n.livePhases,
                      .elements = n.elements, .element_bytes = n.elementBytes, .keyed = n.keyed,
                      .partner = n.partner, .combines = n.traits().io == io_rule::reduce_runs});
}

flow::plan::memory_planner MemoryPlanner::planner() {
  return {nodes_, plan_.memoryBytes, plan_.blockBytes, planningThreads()};
}

bool MemoryPlanner::assign() {
  if (!countsFit()) return false;
  if (auto shortfall = planner().assign()) {
    reportTooSmall(shortfall->phase, shortfall->needed);
    return false;
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = plan_.nodes[i];
    n.memoryBytes = nodes_[i].memory;
    n.inMemory = nodes_[i].in_memory;
    n.runs = nodes_[i].runs;
  }
  return true;
}

void MemoryPlanner::adopt(const Plan& program) {
  if (program.nodes.size() != plan_.nodes.size()) throw std::logic_error("plan: adopt() from a plan of other nodes");
  program_ = &program;
  for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i].memory = plan_.nodes[i].memoryBytes = program.nodes[i].memoryBytes;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = plan_.nodes[i];
    if (n.traits().io != io_rule::sort_runs && n.traits().io != io_rule::sort_merge) continue;
    const sort_cost c = planner().sort(nodes_[i]); // the runtime decides in memory or not by the real count
    n.inMemory = nodes_[i].in_memory = c.in_memory;
    n.runs = nodes_[i].runs = c.runs;
  }
}

bool MemoryPlanner::countsFit() {
  // The first node past the limit is where the count comes from (nodes are in data-flow
  // order): point at the count in the script — generate's, a file's `~` estimate — if it
  // is there.
  for (const Node& n : plan_.nodes) {
    if (n.elements <= static_cast<double>(flow::plan::max_elements)) continue;
    SourceLoc at = n.loc;
    if (n.kind == Node::Generate) at = n.get<ast::GenerateSource>()->count->loc;
    if (n.traits().io == io_rule::reads_file) {
      if (const auto& e = n.get<ast::ReadSource>()->estimate) at = e->loc;
    }
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", n.elements);
    diags_.error(file_, at,
                 std::string("this count is ") + count + " elements, more than 2^63 (" +
                     std::to_string(flow::plan::max_elements) + "), the most a plan can take");
    return false;
  }
  return true;
}

std::string MemoryPlanner::leastBudget() const {
  // The rule programs follow at start (flow::plan::least_budget): the budget named runs.
  const std::optional<uint64_t> fixedBlock = plan_.blockDefaulted ? std::nullopt : std::optional<uint64_t>(plan_.blockBytes);
  const uint64_t least = flow::plan::least_budget(nodes_, plan_.memoryBytes, fixedBlock, planningThreads());
  if (!least) return " (no budget holds this plan)";
  return " (the least budget that holds this plan is " + flow::format_bytes(static_cast<double>(least), true) + ", " +
         std::to_string(least) + " bytes" +
         (fixedBlock ? "" : ", with blocks of " + formatBytes(static_cast<double>(flow::block_for_memory(least)))) + ")";
}

void MemoryPlanner::reportTooSmall(int phase, uint64_t needed) {
  std::string parts;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const bool inPhase = plan_.nodes[i].spansPhases()
                             ? std::count(nodes_[i].live_phases.begin(), nodes_[i].live_phases.end(), phase) > 0
                             : nodes_[i].phase == phase;
    const uint64_t m = inPhase ? planner().minimum(nodes_[i]) : 0;
    if (m == 0) continue;
    parts += (parts.empty() ? "" : ", ") + plan_.nodes[i].name + " " + formatBytes(static_cast<double>(m));
  }
  const Phase* ph = nullptr;
  for (const Phase& x : plan_.phases)
    if (x.id == phase) ph = &x;
  diags_.error(file_, ph ? ph->loc : SourceLoc{},
               "the plan does not fit the memory budget: phase " + std::to_string(phase) +
                   (ph ? " (" + ph->label + ")" : "") + " needs at least " + formatBytes(static_cast<double>(needed)) +
                   " (" + parts + ") with blocks of " + formatBytes(static_cast<double>(plan_.blockBytes)) +
                   ", but the budget is " + formatBytes(static_cast<double>(plan_.memoryBytes)) +
                   "; raise 'memory' (or --memory) or lower 'block'" + leastBudget());
}

void MemoryPlanner::computeIo() {
  for (Node& n : plan_.nodes) {
    double bytes = n.elements * n.elementBytes;
    switch (n.traits().io) {
    case io_rule::none: break;
    case io_rule::reads_file:
    case io_rule::reads_store: n.readBytes = bytes; break;
    case io_rule::writes_file:
    case io_rule::writes_store: n.writeBytes = bytes; break;
    case io_rule::sort_runs:
      n.writeBytes = static_cast<double>(planner().sort(nodes_[static_cast<size_t>(n.id)]).runs_write); // whole blocks
      n.tempDiskBytes = n.writeBytes;
      break;
    case io_rule::sort_merge: {
      // The final merge reads the runs; intermediate passes merge the smallest runs,
      // reading and writing them once more.
      const sort_cost c = planner().sort(nodes_[static_cast<size_t>(n.id)]);
      if (c.in_memory) break;
      n.fanIn = c.fan_in;
      n.passes = plan_.nodes[n.partner].passes = static_cast<int>(c.passes);
      n.readBytes = static_cast<double>(c.merge_read);
      n.writeBytes = static_cast<double>(c.merge_write);
      n.tempDiskBytes = static_cast<double>(c.disk_peak); // the runs, and a second level while it is merged
      break;
    }
    case io_rule::reduce_runs:
    case io_rule::reduce_merge: {
      // Equal keys are combined as runs form and as they merge, so the I/O shrinks with
      // the distinct keys (the merge's output count); where they all fit in the hash
      // table the reduce writes nothing.
      const Node& runs = n.traits().io == io_rule::reduce_runs ? n : plan_.nodes[n.partner];
      const Node& merge = plan_.nodes[static_cast<size_t>(runs.partner)];
      const memory_node& rn = nodes_[static_cast<size_t>(runs.id)];
      const memory_node& mn = nodes_[static_cast<size_t>(merge.id)];
      const reduce_cost c = reduce_estimate(planner().setup(rn), memory_planner::elements(rn),
                                            memory_planner::elements(mn), rn.memory, mn.memory);
      if (n.traits().io == io_rule::reduce_runs) {
        // The code generator chose the hash table by the static plan (adopt).
        n.hashed = program_ ? program_->nodes[static_cast<size_t>(n.id)].hashed : merge.counted && c.hash_in_memory;
        const std::string keys = formatCount(merge.elements) + " distinct keys expected";
        const std::string capacity = formatCount(static_cast<double>(c.hash_capacity));
        n.note = n.hashed ? "a hash table: the " + keys + " fit in it (it holds " + capacity + ")"
                 : !merge.counted
                     ? "combines while forming runs and merging: the distinct keys are not known"
                     : "combines while forming runs and merging: " + keys + ", more than a hash table holds (" +
                           capacity + ")";
        if (!n.hashed && !c.sort.in_memory) n.tempDiskBytes = n.writeBytes = static_cast<double>(c.sort.runs_write);
      } else if (!runs.hashed && !c.sort.in_memory) {
        n.fanIn = c.sort.fan_in;
        n.passes = static_cast<int>(c.sort.passes);
        n.readBytes = static_cast<double>(c.sort.merge_read);
        n.writeBytes = static_cast<double>(c.sort.merge_write);
        n.tempDiskBytes = static_cast<double>(c.sort.disk_peak);
      }
      break;
    }
    case io_rule::block_accesses:
      // An upper bound: every access misses the cache and reads a block, every write
      // writes one back.
      n.readBytes = n.accesses * static_cast<double>(plan_.blockBytes);
      n.writeBytes = n.writes * static_cast<double>(plan_.blockBytes);
      n.note = "an upper bound: one block read per access (" + formatCount(n.accesses) + ") and one written per write (" +
               formatCount(n.writes) + "); the cache holds " +
               formatCount(static_cast<double>(n.memoryBytes / std::max<uint64_t>(1, plan_.blockBytes))) + " blocks";
      break;
    case io_rule::queue: {
      // The queue is configured for the pushes the program plans with (adopt: the static
      // plan's); its I/O is the runtime's model (pq_config::io) for its pushes and the
      // items it holds at once: all of them, unless a calibration measured its peak.
      const double planned = program_ ? program_->nodes[static_cast<size_t>(n.id)].elements : n.elements;
      auto cfg = containers::plan_priority_queue(n.memoryBytes, static_cast<uint64_t>(planned), n.elementBytes,
                                                 plan_.blockBytes);
      const bool peak = n.calibrated && n.calibrated->peakFraction > 0;
      const double items = peak ? std::max(1.0, std::ceil(n.elements * n.calibrated->peakFraction)) : n.elements;
      const auto io = cfg.io(static_cast<uint64_t>(n.elements), static_cast<uint64_t>(items));
      n.readBytes = n.writeBytes = static_cast<double>(io.bytes) / 2;
      if (!peak)
        n.note = "an upper bound: as if all " + formatCount(n.elements) +
                 " pushes were held at once (flowc explain --calibrate measures the peak)";
      else {
        char share[64];
        std::snprintf(share, sizeof share, "%.4g%% of its pushes", n.calibrated->peakFraction * 100);
        n.note = "calibrated: " + formatCount(n.elements) + " pushes, at most " + formatCount(items) +
                 " items at once (" + share + " in the calibration run)" +
                 (io.bytes > 0 ? ": more than its internal arrays hold, so an upper bound as if all were held at once"
                               : ": within its internal arrays, nothing written");
      }
      n.passes = static_cast<int>(io.levels);
      n.queue = containers::describe(cfg);
      n.tempDiskBytes = n.writeBytes; // an upper bound: what it writes out, never freed early
      break;
    }
    }
    if (n.traits().memory == memory_role::reserved && n.counted)
      n.note = "in memory, " + formatBytes(n.elements * static_cast<double>(n.elementBytes)) + " reserved in phases " +
               std::to_string(n.livePhases.front()) +
               (n.livePhases.size() > 1 ? " to " + std::to_string(n.livePhases.back()) : std::string());
  }
  // Vectors and stored streams stay on the temporary disk until the last phase that
  // reads them (a vector of the script lives longer, but is not read again).
  for (Node& n : plan_.nodes) {
    const sema::Symbol* stored = n.storeWritten();
    n.tempDiskUntil = n.phase;
    if (!stored) continue;
    n.tempDiskBytes = n.writeBytes;
    for (const Node& reader : plan_.nodes)
      if (reader.storeRead() == stored) n.tempDiskUntil = std::max(n.tempDiskUntil, reader.phase);
  }
  // As if every stream were materialized: each edge of the graph is a file, written once
  // by its producer (unless the producer is a file already) and read by each consumer
  // (unless the consumer is the sink that names that file).
  for (Node& n : plan_.nodes) {
    n.materializedRead = n.materializedWrite = 0;
    // Nodes outside the pipelines (containers, v[i]) move what they move either way.
    if (!n.traits().inPipeline()) {
      n.materializedRead = n.readBytes;
      n.materializedWrite = n.writeBytes;
      continue;
    }
    if (n.traits().readsElements() || n.kind == Node::Materialize) continue;
    if (n.traits().writesElements()) {
      const Node& in = plan_.nodes[n.inputs[0]];
      if (in.traits().readsElements()) n.materializedRead = n.materializedWrite = n.elements * n.elementBytes;
      continue;
    }
    const io_rule io = n.traits().io;
    for (int i : n.inputs) {
      const Node& in = plan_.nodes[i];
      if (io == io_rule::sort_merge || io == io_rule::reduce_merge) continue; // reads its runs, below
      n.materializedRead += in.elements * in.elementBytes;
    }
    double bytes = n.elements * n.elementBytes;
    bool hasConsumer = false;
    for (const Node& other : plan_.nodes)
      for (int i : other.inputs) hasConsumer = hasConsumer || i == n.id;
    if (io == io_rule::sort_runs || io == io_rule::reduce_runs) {
      n.materializedWrite = bytes; // the runs
    } else if (io == io_rule::reduce_merge) {
      n.materializedRead = plan_.nodes[n.partner].elements * n.elementBytes;
      n.materializedWrite = hasConsumer ? bytes : 0;
    } else if (io == io_rule::sort_merge) {
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
    ph.tempDiskBytes = 0;
  }
  std::map<int, Phase*> phaseById;
  for (Phase& ph : plan_.phases) phaseById[ph.id] = &ph;
  for (const Node& n : plan_.nodes) {
    // A node in a loop's phase does its I/O once per round.
    auto own = phaseById.find(n.phase);
    const double rounds = own == phaseById.end() ? 1.0 : own->second->rounds;
    plan_.total.readBytes += n.readBytes * rounds;
    plan_.total.writeBytes += n.writeBytes * rounds;
    plan_.materialized.readBytes += n.materializedRead * rounds;
    plan_.materialized.writeBytes += n.materializedWrite * rounds;
    std::vector<int> phases = n.spansPhases() ? n.livePhases : std::vector<int>{n.phase};
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
    if (n.tempDiskBytes > 0) {
      if (n.spansPhases()) { // a queue: its disk is held while it lives
        for (int p : n.livePhases)
          if (auto it = phaseById.find(p); it != phaseById.end()) it->second->tempDiskBytes += n.tempDiskBytes;
      } else {
        for (Phase& ph : plan_.phases)
          if (ph.id >= n.phase && ph.id <= std::max(n.phase, n.tempDiskUntil)) ph.tempDiskBytes += n.tempDiskBytes;
      }
    }
  }
}

} // namespace flow::plan
