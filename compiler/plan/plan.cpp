#include "plan/plan.hpp"

#include "plan/flow_graph.hpp"
#include "plan/memory.hpp"

#include <cmath>
#include <cstdio>

namespace flow::plan {

const char* Node::kindName() const {
  switch (kind) {
  case Generate: return "generate";
  case Range: return "range";
  case ReadFile: return "read";
  case ReadText: return "read_text";
  case ScanVector: return "scan";
  case Merge: return "merge";
  case Map: return "map";
  case Filter: return "filter";
  case Unique: return "unique";
  case Take: return "take";
  case ForStage: return "for_stage";
  case SortRuns: return "sort_runs";
  case SortMerge: return "sort_merge";
  case Branch: return "branch";
  case Materialize: return "materialize";
  case Reread: return "reread";
  case WriteFile: return "write";
  case WriteText: return "write_text";
  case VectorBuild: return "vector";
  case VectorPush: return "vector_push";
  case Queue: return "pq";
  case Aggregate: return "aggregate";
  case Loop: return "loop";
  }
  return "node";
}

const Node* Plan::forDeclaration(const ast::Stmt* decl) const {
  auto it = declarationNode.find(decl);
  return it == declarationNode.end() ? nullptr : &nodes[it->second];
}

const Node* Plan::forAggregate(const ast::CallExpr* call) const {
  auto it = aggregateNode.find(call);
  return it == aggregateNode.end() ? nullptr : &nodes[it->second];
}

std::string formatBytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  else std::snprintf(buf, sizeof buf, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

std::string formatCount(double count) {
  static const char* units[] = {"", " K", " M", " G", " T", " P"};
  int u = 0;
  while (count >= 1000 && u < 5) {
    count /= 1000;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f", count);
  else std::snprintf(buf, sizeof buf, count < 10 ? "%.2f%s" : count < 100 ? "%.1f%s" : "%.0f%s", count, units[u]);
  return buf;
}

namespace {
/// The block size when the script does not fix one: about 1/128 of the budget (so a
/// merge can take 64 runs at once), a power of two between 64 KiB and 4 MiB.
uint64_t defaultBlock(uint64_t memory) {
  uint64_t b = 64 << 10;
  while (b * 2 <= memory / 128 && b < (4u << 20)) b *= 2;
  return b;
}
} // namespace

std::optional<Plan> makePlan(const sema::CheckedProgram& program, const PlanOptions& options,
                             DiagnosticEngine& diags) {
  Plan plan;
  plan.script = program.ast->file ? program.ast->file->path() : "";
  const uint64_t kDefaultMemory = 1ull << 30;
  plan.memoryBytes = options.memoryBytes.value_or(program.memoryBytes.value_or(kDefaultMemory));
  plan.memoryDefaulted = !options.memoryBytes && !program.memoryBytes;
  plan.blockBytes = options.blockBytes.value_or(program.blockBytes.value_or(defaultBlock(plan.memoryBytes)));
  plan.blockDefaulted = !options.blockBytes && !program.blockBytes;
  unsigned before = diags.errorCount();
  GraphBuilder graph(program, plan, diags, options);
  if (!graph.evaluateParams()) return std::nullopt;
  graph.build();
  MemoryPlanner memory(plan, diags, program.ast->file);
  if (!memory.assign()) return std::nullopt;
  memory.computeIo();
  memory.totals();
  if (diags.errorCount() != before) return std::nullopt;
  return plan;
}

} // namespace flow::plan
