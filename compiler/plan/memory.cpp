// Memory assignment and I/O volume: splits the budget among the nodes of each phase,
// preferring the split that saves a merge pass, and computes what every node reads and
// writes — pipelined as planned, and as if every stream were materialized.
#include "plan/memory.hpp"

#include "flow/defaults.hpp"
#include "flow/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <optional>

namespace flow::plan {

MemoryPlanner::MemoryPlanner(Plan& plan, DiagnosticEngine& diags, const SourceFile* file)
    : plan_(plan), diags_(diags), file_(file), nodes_(demands(plan)) {}

std::vector<memory_node> MemoryPlanner::demands(const Plan& plan) {
  std::vector<memory_node> nodes;
  for (const Node& n : plan.nodes) {
    const io_rule io = n.traits().io;
    // A reduce whose distinct keys are expected chooses the hash table when they fit it,
    // the combining sort when they do not; one whose keys are not known hashes (as DuckDB
    // does): a table that fills is written as a sorted run, so it is never worse than
    // sorting by much, and with repeated keys (a word count) it is several times faster.
    const bool counted = io == io_rule::reduce_runs && plan.nodes[static_cast<size_t>(n.partner)].counted;
    const bool peak = io == io_rule::queue && n.calibrated && n.calibrated->peakFraction > 0;
    const bool hashJoin = n.kind == Node::HashJoin;
    const ast::JoinSource* join = hashJoin ? n.get<ast::JoinSource>() : nullptr;
    nodes.push_back({.role = n.memoryRole(), .phase = n.phase, .live_phases = n.livePhases,
                     .elements = n.elements, .element_bytes = n.batchElementBytes ? n.batchElementBytes : n.elementBytes,
                     .keyed = n.keyed,
                     .partner = hashJoin ? n.inputs[1] : n.partner, .probe = hashJoin ? n.inputs[0] : -1,
                     .probe_element_bytes = hashJoin ? join->inputs[0]->elementType->size() : 0,
                     .build_element_bytes = hashJoin ? join->inputs[1]->elementType->size() : 0,
                     .io = io, .accesses = n.accesses(), .writes = n.writes(),
                     .hashing = io != io_rule::reduce_runs ? reduce_hashing::no
                                : counted                 ? reduce_hashing::if_fits
                                                          : reduce_hashing::yes,
                     .spread = n.spread && n.traits().memory == memory_role::sort_runs,
                     .peak_fraction = peak ? n.calibrated->peakFraction : 0,
                     .batch_outputs = n.batchOutputs});
  }
  return nodes;
}

flow::plan::memory_planner MemoryPlanner::planner() {
  return {nodes_, plan_.memoryBytes, plan_.blockBytes};
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
  std::vector<memory_node> theirs = demands(program);
  for (size_t i = 0; i < theirs.size(); ++i) theirs[i].memory = program.nodes[i].memoryBytes;
  // What a calibrated program does at start (flow::plan::memory_planner::adopt).
  planner().adopt(flow::plan::memory_planner(theirs, program.memoryBytes, program.blockBytes));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = plan_.nodes[i];
    n.memoryBytes = nodes_[i].memory;
    if (n.traits().io != io_rule::sort_runs && n.traits().io != io_rule::sort_merge) continue;
    n.inMemory = nodes_[i].in_memory;
    n.runs = nodes_[i].runs;
  }
}

bool MemoryPlanner::countsFit() {
  // Point at where the count comes from: the first node past the limit whose inputs (and
  // the nodes it scales with: a queue's pushing loop) are all within it — then at the
  // count in the script, generate's or a file's `~` estimate, if it is there. (A queue
  // is declared before the loop that fills it, so the first node past the limit may not
  // be the origin.)
  const auto over = [this](int id) {
    return id >= 0 && id < static_cast<int>(plan_.nodes.size()) &&
           plan_.nodes[id].elements > static_cast<double>(flow::plan::max_elements);
  };
  const Node* origin = nullptr;
  for (const Node& n : plan_.nodes) {
    if (!over(n.id)) continue;
    if (!origin) origin = &n;
    if (std::none_of(n.inputs.begin(), n.inputs.end(), over) &&
        std::none_of(n.scaling.from.begin(), n.scaling.from.end(), over)) {
      origin = &n;
      break;
    }
  }
  if (!origin) return true;
  const Node& n = *origin;
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

std::string MemoryPlanner::leastBudget() const {
  // The rule programs follow at start (flow::plan::least_budget): the budget named runs.
  const std::optional<uint64_t> fixedBlock = plan_.blockDefaulted ? std::nullopt : std::optional<uint64_t>(plan_.blockBytes);
  const uint64_t least = flow::plan::least_budget(nodes_, plan_.memoryBytes, fixedBlock);
  if (!least) return " (no budget holds this plan)";
  return " (the least budget that holds this plan is " + flow::format_bytes(static_cast<double>(least), true) + ", " +
         std::to_string(least) + " bytes" +
         (fixedBlock ? "" : ", with blocks of " + formatBytes(static_cast<double>(flow::block_for_memory(least)))) + ")";
}

void MemoryPlanner::reportTooSmall(int phase, uint64_t needed) {
  std::string parts;
  std::vector<int> needing; // the nodes of the phase that need memory
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const bool inPhase = plan_.nodes[i].spansPhases()
                             ? std::count(nodes_[i].live_phases.begin(), nodes_[i].live_phases.end(), phase) > 0
                             : nodes_[i].phase == phase;
    const uint64_t m = inPhase ? planner().minimum(nodes_[i]) : 0;
    if (m == 0) continue;
    parts += (parts.empty() ? "" : ", ") + plan_.nodes[i].name + " " + formatBytes(static_cast<double>(m));
    needing.push_back(static_cast<int>(i));
  }
  const Phase* ph = nullptr;
  for (const Phase& x : plan_.phases)
    if (x.id == phase) ph = &x;
  diags_.error(file_, ph ? ph->loc : SourceLoc{},
               "the plan does not fit the memory budget: phase " + std::to_string(phase) +
                   (ph ? " (" + ph->label + ")" : "") + " needs at least " + formatBytes(static_cast<double>(needed)) +
                   " (" + parts + ") with blocks of " + formatBytes(static_cast<double>(plan_.blockBytes)) +
                   ", but the budget is " + formatBytes(static_cast<double>(plan_.memoryBytes)) +
                   "; raise 'memory' (or --memory)" + (plan_.blockBytes > 4096 ? " or lower 'block'" : "") + leastBudget());
  // The counts it needs memory for may rest on an assumption upstream: a for stage planned
  // to emit at each emit site for every element, a filter planned to pass everything.
  // Say where, so the script can give the stage its `~`.
  std::vector<bool> seen(plan_.nodes.size(), false);
  std::vector<int> todo = std::move(needing);
  while (!todo.empty()) {
    const Node& n = plan_.nodes[static_cast<size_t>(todo.back())];
    todo.pop_back();
    if (seen[static_cast<size_t>(n.id)]) continue;
    seen[static_cast<size_t>(n.id)] = true;
    for (int in : n.inputs) todo.push_back(in);
    std::string assumed;
    if (n.kind == Node::ForStage && !n.get<ast::ForStage>()->estimate)
      assumed = "'" + n.name + "' is planned to emit at each of its emit sites for every element it takes (" +
                formatCount(n.elements) + " elements); if it emits fewer, say how many per element: ~ RATIO after it";
    else if (n.kind == Node::Filter && !n.get<ast::FilterStage>()->estimate)
      assumed = "'" + n.name + "' is planned to pass every element (" + formatCount(n.elements) +
                "); if it passes fewer, say what fraction: ~ FRACTION after it";
    if (!assumed.empty()) diags_.note(file_, n.loc, assumed);
  }
}

void MemoryPlanner::computeIo() {
  // Each node is priced by the runtime's one function, which generated programs call
  // again at start for their own params and --memory: here only what explains it.
  const flow::plan::memory_planner prices = planner();
  for (Node& n : plan_.nodes) {
    const node_cost c = prices.cost(static_cast<size_t>(n.id));
    n.readBytes = c.read_bytes;
    n.writeBytes = c.write_bytes;
    n.tempDiskBytes = c.temp_disk_bytes;
    n.passes = static_cast<int>(c.passes);
    n.fanIn = c.fan_in;
    const io_rule io = n.traits().io;
    if (io == io_rule::reduce_runs) {
      const Node& merge = plan_.nodes[static_cast<size_t>(n.partner)];
      n.hashed = c.hashed; // what the code generator builds
      n.hashPartitions = c.hash_partitions;
      const std::string keys = formatCount(merge.elements) + " distinct keys expected";
      const std::string capacity = formatCount(static_cast<double>(c.hash_capacity));
      const std::string partitions =
          c.hash_partitions > 1 ? "; " + std::to_string(c.hash_partitions) + " partitions of it, filled on " +
                                      (n.insertsOnCaller ? "its phase's thread" : "all threads")
                                : "";
      n.note = !merge.counted
                   ? "a hash table of " + capacity + " keys" + partitions +
                         ": the distinct keys are not known, so it writes a sorted run whenever it fills (a count on "
                         "its input, such as `~ N` on a read, and `~ f` on the reduce let the plan price it)"
               : n.hashed ? "a hash table: the " + keys + " fit in it (it holds " + capacity + partitions + ")"
                          : "combines while forming runs and merging: " + keys + ", more than a hash table holds (" +
                                capacity + ")";
    }
    if (io == io_rule::hash_join && c.passes > 1)
      n.note += "; its memory holds a table of " +
                formatCount(static_cast<double>(flow::plan::hash_join_capacity(
                    nodes_[static_cast<size_t>(n.id)].build_element_bytes,
                    n.memoryBytes - std::min(n.memoryBytes, prices.hash_join_probe(nodes_[static_cast<size_t>(n.id)])),
                    plan_.blockBytes))) +
                " elements: " + std::to_string(c.passes) + " passes, the left input written to disk and read again";
    if (io == io_rule::block_accesses)
      n.note = "an upper bound: one block read per access (" + formatCount(n.accesses()) + ") and one written per write (" +
               formatCount(n.writes()) + "); the cache holds " +
               formatCount(static_cast<double>(n.memoryBytes / std::max<uint64_t>(1, plan_.blockBytes))) + " blocks";
    if (io == io_rule::queue) {
      n.queue = containers::describe(*c.queue);
      if (!n.calibrated || !(n.calibrated->peakFraction > 0))
        n.note = "an upper bound: as if all " + formatCount(n.elements) +
                 " pushes were held at once (flowc explain --calibrate measures the peak)";
      else {
        char share[64];
        std::snprintf(share, sizeof share, "%.4g%% of its pushes", n.calibrated->peakFraction * 100);
        n.note = "calibrated: " + formatCount(n.elements) + " pushes, at most " + formatCount(c.held) +
                 " items at once (" + share + " in the calibration run)" +
                 (c.read_bytes + c.write_bytes > 0
                      ? ": more than its internal arrays hold, so an upper bound as if all were held at once"
                      : ": within its internal arrays, nothing written");
      }
    }
    if (n.memoryRole() == memory_role::reserved && n.counted)
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
    if (io == io_rule::hash_join) { // its passes' own I/O, either way
      n.materializedRead += n.readBytes;
      n.materializedWrite += n.writeBytes;
    }
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
