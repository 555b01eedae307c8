#include "plan/plan.hpp"

#include "plan/flow_graph.hpp"
#include "plan/memory.hpp"

#include "ast/visit.hpp"

#include "flow/defaults.hpp"
#include "flow/format.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <cstdio>

namespace flow::plan {

const sema::Symbol* Node::storeWritten() const {
  switch (kind) {
  case VectorBuild: return get<ast::VectorDecl>()->symbol;
  case VectorRefill: return get<ast::AssignStmt>()->vector;
  case VectorPush:
  case Materialize: return get<sema::Symbol>();
  default: return nullptr;
  }
}

const sema::Symbol* Node::storeRead() const {
  return kind == ScanVector || kind == VectorIndex || kind == Reread ? get<sema::Symbol>() : nullptr;
}

const NodeTraits& Node::traitsOf(Kind kind) {
  static constexpr NodeTraits table[] = {
#define FLOW_NODE(Kind, label, Payload, pipeline, endsSegment, memory, io, count, threads)                                 \
  {label, PipelineRole::pipeline, endsSegment, memory_role::memory, io_rule::io, Count::count, Threads::threads},
#include "plan/node_kinds.def"
#undef FLOW_NODE
  };
  return table[kind];
}

bool Node::holdsPayloadOf(Kind kind, const Payload& payload) {
  switch (kind) {
#define FLOW_NODE(Kind, label, Payload, ...)                                                                            \
  case Kind: return std::holds_alternative<const Payload*>(payload);
#include "plan/node_kinds.def"
#undef FLOW_NODE
  }
  return false;
}

const Node* Plan::forDeclaration(const ast::Stmt* decl) const {
  auto it = declarationNode.find(decl);
  return it == declarationNode.end() ? nullptr : &nodes[it->second];
}

const Node* Plan::forAggregate(const ast::CallExpr* call) const {
  auto it = aggregateNode.find(call);
  return it == aggregateNode.end() ? nullptr : &nodes[it->second];
}

bool Plan::readsInput(const ast::ReadSource& read) const {
  if (read.path.isParam()) return !writtenPathParams.count(read.path.symbol);
  return !writtenFiles.count(read.path.literal.text());
}

std::string Plan::pathValue(const ast::PathRef& path) const {
  if (!path.isParam()) return path.literal.text();
  auto it = pathValues.find(path.symbol);
  return it == pathValues.end() ? std::string() : it->second;
}

std::string Plan::pathLabel(const ast::PathRef& path) const {
  return path.isParam() ? path.param + "=\"" + pathValue(path) + "\"" : "\"" + pathValue(path) + "\"";
}

std::string formatBytes(double bytes) { return flow::format_bytes(bytes); }
std::string formatCount(double count) { return flow::format_count(count); }

namespace {
/// Whether a str is anywhere in the script: a value, an element or a record's field.
bool holdsStr(const sema::Type* t) {
  if (!t) return false;
  if (t->isStr()) return true;
  if (t->kind == sema::Type::Array) return holdsStr(t->element);
  if (t->kind == sema::Type::Record)
    for (const sema::FieldInfo& f : t->record->fields)
      if (holdsStr(f.type)) return true;
  return false;
}
bool usesStr(const sema::CheckedProgram& program) {
  struct Finder : ast::Visitor {
    bool found = false;
    bool visit(const ast::Expr& e) override { return !(found = found || holdsStr(e.type)); }
    bool visit(const ast::Pipeline& p) override { return !(found = found || holdsStr(p.elementType)); }
  } finder;
  for (const ast::StmtPtr& item : program.ast->items) finder.walk(*item);
  return finder.found;
}
} // namespace

std::optional<Plan> makePlan(const sema::CheckedProgram& program, const PlanOptions& options,
                             DiagnosticEngine& diags) {
  Plan plan;
  plan.script = program.ast->file ? program.ast->file->path() : "";
  plan.memoryBytes = options.memoryBytes.value_or(program.memoryBytes.value_or(flow::default_memory_bytes));
  plan.memoryDefaulted = !options.memoryBytes && !program.memoryBytes;
  if (usesStr(program)) plan.strCapacity = program.types.strCapacity();
  plan.blockBytes = flow::block_size(options.blockBytes, program.blockBytes, plan.memoryBytes);
  plan.blockDefaulted = !options.blockBytes && !program.blockBytes;
  unsigned before = diags.errorsReported();
  GraphBuilder graph(program, plan, diags, options);
  if (!graph.evaluateParams()) return std::nullopt;
  {
    // The files the script writes, wherever it writes them, before the walk decides
    // how a stream read by several statements is read again (GraphBuilder::knownWrites).
    Plan writes;
    writes.memoryBytes = plan.memoryBytes;
    writes.blockBytes = plan.blockBytes;
    GraphBuilder first(program, writes, diags, options);
    if (first.evaluateParams()) {
      first.build();
      graph.knownWrites(writes);
    }
  }
  graph.build();
  for (Node& n : plan.nodes) n.startElements = n.elements;
  // A program plans a read of an input file without `~ N` for the file's size at start:
  // it scales the counts of a second graph in which such a read counts
  // kNominalInputElements (the files the script writes are known from the first).
  const bool uncountedInputs = std::any_of(plan.nodes.begin(), plan.nodes.end(), [&](const Node& n) {
    return (n.kind == Node::ReadFile || n.kind == Node::ReadText) && !n.get<ast::ReadSource>()->estimate &&
           plan.readsInput(*n.get<ast::ReadSource>());
  });
  if (uncountedInputs) {
    Plan nominal;
    nominal.memoryBytes = plan.memoryBytes;
    nominal.blockBytes = plan.blockBytes;
    GraphBuilder counted(program, nominal, diags, options);
    counted.nominalUncountedInputs();
    counted.knownWrites(plan);
    if (counted.evaluateParams()) {
      counted.build();
      if (nominal.nodes.size() != plan.nodes.size()) throw std::logic_error("plan: the nominal graph has other nodes");
      for (size_t i = 0; i < plan.nodes.size(); ++i) plan.nodes[i].startElements = nominal.nodes[i].elements;
    }
  }
  if (options.spreadOverRanks) spreadOverRanks(plan, options.ranks);
  batchStages(plan);
  MemoryPlanner memory(plan, diags, program.ast->file);
  if (!memory.assign()) return std::nullopt;
  if (options.programPlan) memory.adopt(*options.programPlan);
  memory.computeIo();
  foldBatchesIntoReduces(plan); // once the memory planner has chosen the hash tables
  memory.totals();
  if (diags.errorsReported() != before) return std::nullopt;
  if (options.calibration) plan.calibration = *options.calibration;
  if (options.spreadOverRanks) priceNetwork(plan);
  return plan;
}

} // namespace flow::plan
