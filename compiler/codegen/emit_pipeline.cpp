// Pipelines, generated from the plan's nodes: each segment (a phase, or the part of a
// nested pipeline between sorts) is one loop per source, the stages inlined into it in
// the order the elements flow; a sort's run formation ends a segment, its merge starts
// the next. The nodes are the runtime's (flow/stream, flow/algo, flow/containers): the
// generated code composes them and inlines only the script's own per-element code.
#include "codegen/generator.hpp"

#include "flow/escape.hpp"

#include <algorithm>
#include <functional>

namespace flow::codegen {

using namespace flow::ast;
using plan::Node;
using sema::Symbol;
using sema::Type;

namespace {
bool isPipelineNode(Node::Kind k) {
  return k != Node::Queue && k != Node::VectorPush && k != Node::ArrayAlloc && k != Node::VectorIndex;
}
} // namespace

std::string Generator::var(const Node& n, const char* role) const {
  return std::string("fl_") + role + std::to_string(n.id);
}

std::string Generator::counter(const Node& n) {
  counted_.insert(n.id);
  return "fl_counts[" + std::to_string(n.id) + "]";
}

std::string Generator::pushCounter(const Symbol& container) {
  // A queue's node is its declaration's; a vector's pushes count on its first push node
  // (the planner puts one per phase that pushes; explain --calibrate scales them all).
  for (const Node& n : plan_.nodes) {
    if (container.kind == Symbol::Queue && n.kind == Node::Queue && n.get<ast::PqDecl>()->symbol == &container)
      return counter(n);
    if (container.kind == Symbol::Vector && n.kind == Node::VectorPush && n.get<Symbol>() == &container)
      return counter(n);
  }
  return "";
}

std::string Generator::aggregateVar(const Node& n) const {
  return var(n, ast::info(*n.get<CallExpr>()->builtin).name);
}

std::string Generator::memoryOf(const Node& n) const {
  // The memory plan made at start for this run's params and --memory (emitMemoryPlan).
  return "fl_nodes[" + std::to_string(n.id) + "].memory";
}

namespace {
/// Nodes that read their inputs side by side, pulling one element at a time from each.
bool pullsInputs(Node::Kind k) { return k == Node::Merge || k == Node::Join || k == Node::Zip; }
/// Nodes a consumer can pull from without their own inputs (sources, sort outputs, and
/// the nodes that pull), and stages it can pull through (the runtime's pull nodes).
bool startsPull(Node::Kind k) {
  return k == Node::ReadFile || k == Node::ReadText || k == Node::ScanVector || k == Node::Reread ||
         k == Node::SortMerge || k == Node::ReduceMerge || k == Node::Generate || k == Node::Range ||
         pullsInputs(k);
}
bool passesPull(Node::Kind k) {
  return k == Node::Map || k == Node::Filter || k == Node::Unique || k == Node::Take || k == Node::Fold;
}
/// Where a segment's stretch of nodes starts: the next segment begins after these.
bool endsSegment(Node::Kind k) { return k == Node::SortRuns || k == Node::ReduceRuns || k == Node::Materialize; }
} // namespace

bool Generator::hasDownstreamLambda(const Node& n) const {
  // Nodes that put elements out from more than one place in the code (an emit per site,
  // an end block, concat's inputs, a fold's flush): their downstream is generated once,
  // as a lambda they call.
  return n.kind == Node::ForStage || n.kind == Node::Concat || (n.kind == Node::Fold && !pulled_.count(n.id));
}

void Generator::emitOwner(const plan::Owner& owner, bool topLevel) {
  std::vector<int> nodes;
  for (const Node& n : plan_.nodes)
    if (n.owner == owner && isPipelineNode(n.kind)) nodes.push_back(n.id);
  if (nodes.empty()) return;
  // Segments: a merge runs one segment after its run formation, a re-read after the
  // materialization it reads; everything else runs in the segment of its latest input.
  // Nodes are numbered after their inputs.
  std::map<int, int> segmentOf;
  int last = 0;
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    int seg = 0;
    for (int in : n.inputs) {
      auto it = segmentOf.find(in);
      if (it == segmentOf.end()) continue; // produced by another statement (re-read)
      seg = std::max(seg, it->second + (endsSegment(plan_.nodes[in].kind) ? 1 : 0));
    }
    segmentOf[id] = seg;
    last = std::max(last, seg);
  }
  // A merge, join or zip pulls its inputs in its own segment, and concat runs them one
  // after the other there (the planner puts them in its phase): an input that would be
  // ready earlier is read while the node runs, not drained beforehand.
  std::function<void(int, int)> runIn = [&](int id, int seg) {
    if (!segmentOf.count(id)) return; // produced by another statement (re-read)
    segmentOf[id] = seg;
    const Node& n = plan_.nodes[id];
    if (n.kind == Node::SortMerge || n.kind == Node::ReduceMerge || n.kind == Node::Reread) return;
    for (int in : n.inputs) runIn(in, seg);
  };
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = plan_.nodes[*it];
    if (!pullsInputs(n.kind) && n.kind != Node::Concat) continue;
    for (int in : n.inputs) runIn(in, segmentOf[n.id]);
  }
  // Results an aggregate hands to the expression that called it live beyond the loops.
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    if (n.kind != Node::Aggregate) continue;
    const CallExpr& call = *n.get<CallExpr>();
    const std::string T = type(call.type);
    switch (*call.builtin) {
    case ast::Builtin::Count: line("uint64_t " + aggregateVar(n) + " = 0;"); break;
    case ast::Builtin::Sum: line(T + " " + aggregateVar(n) + " = 0;"); break;
    default:
      line(T + " " + aggregateVar(n) + "{};");
      line("bool " + var(n, "any") + " = false;");
    }
  }
  // A materialized stream (declared at the start of the program) is written anew each
  // time this statement runs.
  for (int id : nodes)
    if (plan_.nodes[id].kind == Node::Materialize) line(var(plan_.nodes[id], "mat") + ".clear();");
  // Everything else (readers, sorters, writers) ends with the statement, so a vector's
  // scan ends before the next statement reads or changes it.
  line("{");
  ++indent_;
  for (int seg = 0; seg <= last; ++seg) {
    std::vector<int> inSeg;
    for (int id : nodes)
      if (segmentOf[id] == seg) inSeg.push_back(id);
    if (inSeg.empty()) continue;
    if (topLevel) {
      const Node& first = plan_.nodes[inSeg.front()];
      const plan::Phase* phase = nullptr;
      for (const plan::Phase& p : plan_.phases)
        if (p.id == first.phase) phase = &p;
      std::string label = phase ? phase->label : first.name;
      line("");
      line("// phase " + std::to_string(first.phase) + ": " + label + " (estimated read " +
           plan::formatBytes(phase ? phase->readBytes : 0) + ", write " + plan::formatBytes(phase ? phase->writeBytes : 0) +
           ", memory " + plan::formatBytes(phase ? static_cast<double>(phase->memoryBytes) : 0) + ")");
      // Its element count comes from the run (emitSegment): the planner's is for the
      // default params.
      line("fl_program.begin_phase(" + std::to_string(first.phase) + ", " + quote(label) + ");");
    }
    emitSegment(inSeg, topLevel);
    if (topLevel) line("fl_program.end_phase();");
  }
  --indent_;
  line("}");
}

std::string Generator::runtimeCount(const Node& n) {
  const auto sum = [&](const char* op) {
    std::string all;
    for (int in : n.inputs) {
      const std::string c = runtimeCount(plan_.nodes[in]);
      if (c.empty()) return std::string();
      all += (all.empty() ? "" : op) + c;
    }
    return all;
  };
  switch (n.kind) {
  case Node::Generate: return pulled_.count(n.id) ? var(n, "in") + ".remaining()" : "";
  case Node::ReadFile: return var(n, "in") + ".size()"; // 0 for standard input or a pipe: unknown
  case Node::ScanVector: return name(n.get<Symbol>()) + ".size()";
  case Node::Reread: return var(plan_.nodes[n.inputs[0]], "mat") + ".size()";
  case Node::SortMerge: return var(n, "merge") + ".size()"; // the elements sorted
  case Node::Map: return runtimeCount(plan_.nodes[n.inputs[0]]);
  case Node::Merge:
  case Node::Concat: return sum(" + ");
  default: return ""; // filters, joins, reduces: known when they are done
  }
}

void Generator::emitSegment(const std::vector<int>& nodes, bool phase) {
  std::set<int> inSegment(nodes.begin(), nodes.end());
  // The nodes a merge, join or zip pulls from: its inputs, and through the stages that
  // can be pulled (map, filter, …) back to where each input starts. The node functions
  // read them from pulled_; a pipeline nested in a loop body inside this segment has a
  // segment of its own, so this one's set is put back when it ends.
  struct Restore {
    std::set<int>& member;
    std::set<int> saved;
    ~Restore() { member = std::move(saved); }
  } restore{pulled_, std::move(pulled_)};
  std::set<int>& pulled = pulled_;
  pulled.clear();
  std::function<void(int)> pull = [&](int id) {
    const Node& n = plan_.nodes[id];
    if (!inSegment.count(id) && n.kind != Node::SortMerge && n.kind != Node::ReduceMerge) return;
    if (!startsPull(n.kind) && !passesPull(n.kind))
      throw std::logic_error("codegen: an input read side by side that cannot be pulled: " + n.name);
    pulled.insert(id);
    if (passesPull(n.kind))
      for (int in : n.inputs) pull(in);
  };
  for (int id : nodes)
    if (pullsInputs(plan_.nodes[id].kind))
      for (int in : plan_.nodes[id].inputs) pull(in);
  // 1. State of the nodes (sorters, writers, counters, pull nodes), in flow order.
  for (int id : nodes) declareNode(plan_.nodes[id]);
  std::vector<std::string> stops;
  for (int id : nodes)
    if (plan_.nodes[id].kind == Node::Loop && downstreamOfLambda(plan_.nodes[id], inSegment)) {
      stops.push_back(var(plan_.nodes[id], "stop"));
      line("bool " + stops.back() + " = false;");
    }
  // The phase's elements for the progress bar: what its loops over pulled sources will
  // count (advance), now that the merges and readers exist; a generate or range loop adds
  // its count when it starts.
  if (phase) {
    std::string expected;
    for (int id : nodes) {
      const Node& n = plan_.nodes[id];
      bool root = !pulled.count(id);
      for (int in : n.inputs) root = root && (!inSegment.count(in) || pullsInputs(n.kind));
      if (!root || n.kind == Node::Generate || n.kind == Node::Range || !startsPull(n.kind)) continue;
      const std::string c = runtimeCount(n);
      if (!c.empty()) expected += (expected.empty() ? "" : " + ") + c;
    }
    if (!expected.empty()) line("fl_program.expect(" + expected + ");");
  }
  // 2. The downstream of each for stage, concat and fold as a lambda they call; later
  //    ones first, since an earlier one's lambda calls the later ones.
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = plan_.nodes[*it];
    if (!hasDownstreamLambda(n)) continue;
    line("auto " + var(n, "emit") + " = [&](const " + type(elementType(n)) + "& " + var(n, "v") + ") {");
    {
      // The downstream's own emits (in a loop body there) belong to an enclosing for
      // stage, so this lambda is not an emit target while its body is generated.
      Indent in(*this);
      ++lambdaDepth_;
      for (const std::string& stop : stops) line("if (" + stop + ") return; // a loop downstream has stopped");
      consume(n, var(n, "v"), inSegment);
      --lambdaDepth_;
    }
    line("};");
  }
  // 3. One loop per source of the segment (a merge, join or zip loops over what it pulls).
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    bool root = !pulled.count(id);
    for (int in : n.inputs) root = root && (!inSegment.count(in) || pullsInputs(n.kind));
    if (!root) continue;
    const std::string v = var(n, "v");
    switch (n.kind) {
    case Node::Generate: {
      auto& g = *n.get<GenerateSource>();
      std::string i = name(g.indexSymbol);
      line("const uint64_t " + var(n, "n") + " = " + expr(*g.count) + ";");
      if (phase) line("fl_program.expect(" + var(n, "n") + ");");
      line("for (uint64_t " + i + " = 0; " + i + " < " + var(n, "n") + "; ++" + i + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        line("const " + type(g.elementType) + " " + v + " = " + expr(*g.body) + ";");
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    case Node::Range: {
      auto& r = *n.get<RangeSource>();
      std::string T2 = type(r.elementType);
      line("const " + T2 + " " + var(n, "begin") + " = " + expr(*r.begin) + ";");
      line("const " + T2 + " " + var(n, "end") + " = " + expr(*r.end) + ";");
      if (phase)
        line("fl_program.expect(" + var(n, "begin") + " < " + var(n, "end") + " ? static_cast<uint64_t>(" + var(n, "end") +
             ") - static_cast<uint64_t>(" + var(n, "begin") + ") : 0);");
      line("for (" + T2 + " " + v + " = " + var(n, "begin") + "; " + v + " < " + var(n, "end") + "; ++" + v + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    case Node::ReadFile:
    case Node::ReadText:
    case Node::ScanVector:
    case Node::Reread:
    case Node::SortMerge:
    case Node::ReduceMerge:
    case Node::Merge:
    case Node::Join:
    case Node::Zip: {
      std::string source = pullSource(n);
      line("for (; !" + source + ".empty(); ++" + source + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        // maybe_unused: a consumer such as count() does not look at the element
        line("[[maybe_unused]] const auto& " + v + " = *" + source + ";");
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    default: break;
    }
  }
  // 4. What ends with the segment: files are completed, vectors flushed.
  for (int id : nodes) finishNode(plan_.nodes[id]);
}

bool Generator::downstreamOfLambda(const Node& n, const std::set<int>& inSegment) const {
  for (int in : n.inputs)
    if (inSegment.count(in) && (hasDownstreamLambda(plan_.nodes[in]) || downstreamOfLambda(plan_.nodes[in], inSegment)))
      return true;
  return false;
}

void Generator::stopChecks(const std::vector<std::string>& stops) {
  // A `break` in a loop body inside a for stage's lambda sets its flag.
  for (const std::string& s : stops) line("if (" + s + ") break;");
  // Progress of the phase (--progress, and the elements column of --stats): a counter.
  if (atTopLevel()) line("fl_program.advance();");
}

std::string Generator::quote(const std::string& text) { return flow::cpp_string_literal(text); }

std::string Generator::keyPath(const Expr& key, const Type* element) const {
  if (auto* nm = key.as<NameExpr>()) return "." + fieldName(element, nm->name.str());
  if (auto* f = key.as<FieldExpr>()) return keyPath(*f->object, element) + "." + fieldName(f->object->type, f->field);
  if (auto* i = key.as<IndexExpr>()) {
    auto v = sema::evaluate(*i->index, [](const Symbol*) { return std::nullopt; });
    return keyPath(*i->object, element) + "[" + (v ? v->str() : "0") + "]";
  }
  return "";
}

std::string Generator::uniqueKeysEqual(const UniqueStage& u) const {
  // unique (k, …) compares the keys; unique of whole elements that hold floats compares
  // every scalar, so that NaNs are equal there too (a record's == is the script's, IEEE).
  // Other whole elements use the runtime's default equality: an empty string.
  std::vector<std::pair<std::string, const sema::Type*>> keys; // path, type
  for (const ExprPtr& k : u.keys) keys.push_back({keyPath(*k, u.elementType), k->type});
  if (u.keys.empty()) {
    if (!holdsFloat(u.elementType)) return "";
    std::function<void(const sema::Type*, const std::string&)> walk = [&](const sema::Type* t, const std::string& p) {
      if (t->kind == sema::Type::Record && !t->record->imported) {
        for (const sema::FieldInfo& f : t->record->fields) walk(f.type, p + "." + fieldName(t, f.name));
      } else if (t->kind == sema::Type::Array && t->element->kind == sema::Type::Record) {
        for (uint64_t i = 0; i < t->length; ++i) walk(t->element, p + "[" + std::to_string(i) + "]");
      } else {
        keys.push_back({p, t}); // a scalar, an array of scalars, or an imported record
      }
    };
    walk(u.elementType, "");
  }
  const std::string T = type(u.elementType);
  std::string same;
  for (const auto& [path, t] : keys) same += (same.empty() ? "" : " && ") + keyEqual(t, "a" + path, "b" + path);
  return "[](const " + T + "& a, const " + T + "& b) { return " + same + "; }";
}

std::string Generator::pullSource(const Node& n) {
  return n.kind == Node::SortMerge || n.kind == Node::ReduceMerge ? var(n, "merge") : var(n, "in");
}

std::string Generator::pulledInput(const Node& input) {
  // A stream read again by later statements is written out as it is pulled.
  if (const Node* m = materializerOf(input)) {
    line("auto " + var(input, "tee") + " = flow::stream::tee(" + pullSource(input) + ", " + var(*m, "mat") + ");");
    return var(input, "tee");
  }
  return pullSource(input);
}

const sema::Type* Generator::elementType(const Node& n) const {
  switch (n.kind) {
  case Node::ForStage: return n.get<ForStage>()->elementType;
  case Node::Concat: return n.get<ConcatSource>()->elementType;
  case Node::Join: return n.get<JoinSource>()->elementType;
  case Node::Zip: return n.get<ZipSource>()->elementType;
  case Node::Fold:
  case Node::ReduceRuns:
  case Node::ReduceMerge: return n.get<ReduceStage>()->elementType;
  default: throw std::logic_error("codegen: no element type for node " + n.name);
  }
}

const Node* Generator::materializerOf(const Node& n) const {
  for (int c : consumers_[n.id])
    if (plan_.nodes[c].kind == Node::Materialize) return &plan_.nodes[c];
  return nullptr;
}

bool Generator::declarePullNode(const Node& n) {
  const std::string v = var(n, "in");
  auto input = [&] { return pulledInput(plan_.nodes[n.inputs[0]]); };
  switch (n.kind) {
  case Node::Generate: {
    auto& g = *n.get<GenerateSource>();
    line("auto " + v + " = flow::stream::generate(" + expr(*g.count) + ", [&](uint64_t " + name(g.indexSymbol) +
         ") -> " + type(g.elementType) + " { return " + expr(*g.body) + "; });");
    return true;
  }
  case Node::Range: {
    auto& r = *n.get<RangeSource>();
    const std::string T = type(r.elementType);
    line("auto " + v + " = flow::stream::range<" + T + ">(" + expr(*r.begin) + ", " + expr(*r.end) + ");");
    return true;
  }
  case Node::Map: {
    auto& m = *n.get<MapStage>();
    line("auto " + v + " = flow::stream::map(" + input() + ", [&](const " + type(m.varSymbol->type) + "& " +
         name(m.varSymbol) + ") -> " + type(m.elementType) + " { return " + expr(*m.body) + "; });");
    return true;
  }
  case Node::Filter: {
    auto& f = *n.get<FilterStage>();
    line("auto " + v + " = flow::stream::filter(" + input() + ", [&](const " + type(f.varSymbol->type) + "& " +
         name(f.varSymbol) + ") -> bool { return " + expr(*f.cond) + "; });");
    return true;
  }
  case Node::Unique: {
    auto& u = *n.get<UniqueStage>();
    const std::string same = uniqueKeysEqual(u);
    if (same.empty()) {
      line("auto " + v + " = flow::stream::unique(" + input() + ");");
      return true;
    }
    line("auto " + v + " = flow::stream::unique(" + input() + ", " + same + ");");
    return true;
  }
  case Node::Take:
    line("auto " + v + " = flow::stream::take(" + input() + ", " + expr(*n.get<TakeStage>()->count) + ");");
    return true;
  case Node::Fold: {
    auto& r = *n.get<ReduceStage>();
    declareCombine(n, r);
    line("auto " + v + " = flow::stream::reduce_sorted(" + input() + ", " +
         sameKeys(keysOf(r.keyOrder), r.elementType) + ", " + var(n, "combine") + ");");
    return true;
  }
  default: return false; // declared as when not pulled
  }
}

void Generator::declareNode(const Node& n) {
  if (pulled_.count(n.id) && declarePullNode(n)) return;
  switch (n.kind) {
  case Node::SortRuns: {
    auto& s = *n.get<SortStage>();
    std::string T = type(s.elementType);
    line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.runs) + " runs") +
         " estimated");
    compiledApart("flow::algo::runs_creator<" + T + ", " + orderType(s.order->order) + ">", kRunsCreatorCost);
    line("flow::algo::runs_creator<" + T + ", " + orderType(s.order->order) + "> " + var(n, "runs") + "(" +
         memoryOf(n) + ", {}, fl_sort_options);");
    break;
  }
  case Node::SortMerge: {
    const Node& creator = plan_.nodes[n.partner];
    auto& s = *n.get<SortStage>();
    line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.passes) + " pass(es)") +
         " estimated");
    compiledApart("flow::algo::runs_merger<" + type(s.elementType) + ", " + orderType(s.order->order) + ">", kRunsMergerCost);
    line("flow::algo::runs_merger<" + type(s.elementType) + ", " + orderType(s.order->order) + "> " + var(n, "merge") +
         "(std::move(" + var(creator, "sorted") + "), " + memoryOf(n) + ", {}, fl_sort_options);");
    break;
  }
  case Node::ReadFile: {
    auto& r = *n.get<ReadSource>();
    // `where` names the script line when standard input ends inside an element.
    // Its buffers are the plan's (flow::io::typed_file_memory: at least one chunk).
    line("flow::io::file_reader<" + type(r.elementType) + "> " + var(n, "in") + "(" + path(r.path) +
         ", flow::io::typed_file_memory<" + type(r.elementType) + ">(" + memoryOf(n) + "), true, " + where(r.loc) +
         ");");
    break;
  }
  case Node::ReadText: {
    auto& r = *n.get<ReadSource>();
    line("flow::script::text_reader<" + type(r.elementType) + ", " + textFields(r.elementType) + "> " + var(n, "in") +
         "(" + path(r.path) + ");");
    break;
  }
  case Node::ScanVector: {
    // The vector's symbol is the scan's source (scan(v) or a bare vector name).
    line("auto " + var(n, "in") + " = " + name(n.get<Symbol>()) + ".scan();");
    break;
  }
  case Node::Reread: line("auto " + var(n, "in") + " = " + var(plan_.nodes[n.inputs[0]], "mat") + ".scan();"); break;
  case Node::Merge: {
    // The runtime's merge (a loser tree; ties go to the earlier input) over the inputs'
    // pull streams.
    std::string inputs;
    for (int in : n.inputs) inputs += ", " + pulledInput(plan_.nodes[in]);
    line("auto " + var(n, "in") + " = flow::stream::merge<" + orderType(n.get<MergeSource>()->order.order) + ">(" +
         inputs.substr(2) + ");");
    break;
  }
  case Node::Join: {
    auto& j = *n.get<JoinSource>();
    const std::string L = type(j.inputs[0]->elementType), R = type(j.inputs[1]->elementType);
    // The keys compared across the two sides, and the right side's groups of equal keys.
    line("auto " + var(n, "compare") + " = [](const " + L + "& a, const " + R + "& b) -> int {");
    {
      Indent in(*this);
      const auto& left = j.keys[0].resolved;
      const auto& right = j.keys[1].resolved;
      const std::vector<sema::OrderKeyInfo> lk = keysOf(left), rk = keysOf(right);
      for (size_t k = 0; k < lk.size(); ++k) {
        const std::string a = "a" + keyPath(lk[k], left->type), b = "b" + keyPath(rk[k], right->type);
        const bool desc = lk[k].descending;
        line("if (" + (desc ? keyLess(lk[k].type, b, a) : keyLess(lk[k].type, a, b)) + ") return -1;");
        line("if (" + (desc ? keyLess(lk[k].type, a, b) : keyLess(lk[k].type, b, a)) + ") return 1;");
      }
      line("return 0;");
    }
    line("};");
    line("auto " + var(n, "same") + " = " + sameKeys(keysOf(j.keys[1].resolved), j.keys[1].resolved->type) + ";");
    std::string params = "const " + L + "& " + name(j.fn.params[0].symbol) + ", const " + R + "& " +
                         name(j.fn.params[1].symbol);
    if (j.left) params += ", [[maybe_unused]] bool " + name(j.fn.params[2].symbol); // the script may ignore it
    line("auto " + var(n, "fn") + " = [&](" + params + ") -> " + type(j.elementType) + " { return " + expr(*j.fn.body) +
         "; };");
    line("auto " + var(n, "in") + " = flow::stream::" + (j.left ? "left_join" : "join") + "(" +
         pulledInput(plan_.nodes[n.inputs[0]]) + ", " + pulledInput(plan_.nodes[n.inputs[1]]) + ", " +
         var(n, "compare") + ", " + var(n, "same") + ", " + var(n, "fn") + ", " + memoryOf(n) + ", fl_program.block());");
    break;
  }
  case Node::Zip: {
    auto& z = *n.get<ZipSource>();
    std::string params, inputs;
    for (size_t i = 0; i < z.inputs.size(); ++i) {
      params += (i ? ", const " : "const ") + type(z.inputs[i]->elementType) + "& " + name(z.fn.params[i].symbol);
      inputs += ", " + pulledInput(plan_.nodes[n.inputs[i]]);
    }
    line("auto " + var(n, "fn") + " = [&](" + params + ") -> " + type(z.elementType) + " { return " + expr(*z.fn.body) +
         "; };");
    line("auto " + var(n, "in") + " = flow::stream::zip(" + where(n.loc) + ", " + var(n, "fn") + inputs + ");");
    break;
  }
  case Node::ReduceRuns: {
    auto& r = *n.get<ReduceStage>();
    const std::string T = type(r.elementType);
    declareCombine(n, r);
    const std::string order = orderType(r.keyOrder);
    line("// " + n.name + ": " + (n.hashed ? "a hash table" : "run formation") + " that combines equal keys");
    classesInMainCost_ += n.hashed ? kHashReduceCost : kRunsCreatorCost;
    if (n.hashed) {
      line("auto " + var(n, "hash") + " = " + hashKeys(r) + ";");
      line("auto " + var(n, "same") + " = " + sameKeys(keysOf(r.keyOrder), r.elementType) + ";");
      line("flow::stream::hash_reduce_runs<" + T + ", " + order + ", decltype(" + var(n, "hash") + "), decltype(" +
           var(n, "same") + "), decltype(" + var(n, "combine") + ")> " + var(n, "runs") + "(" + memoryOf(n) + ", " +
           var(n, "combine") + ", fl_sort_options, " + var(n, "hash") + ", " + var(n, "same") + ", " + order +
           "{}, static_cast<uint64_t>(fl_nodes[" + std::to_string(n.partner) + "].elements));");
    } else {
      line("flow::stream::reduce_runs<" + T + ", " + order + ", decltype(" + var(n, "combine") + ")> " + var(n, "runs") +
           "(" + memoryOf(n) + ", " + var(n, "combine") + ", fl_sort_options);");
    }
    break;
  }
  case Node::ReduceMerge: {
    auto& r = *n.get<ReduceStage>();
    const Node& runs = plan_.nodes[n.partner];
    classesInMainCost_ += kRunsMergerCost;
    line("flow::stream::reduce_merge<" + type(r.elementType) + ", " + orderType(r.keyOrder) + ", decltype(" +
         var(runs, "combine") + ")> " + var(n, "merge") + "(std::move(" + var(runs, "sorted") + "), " + memoryOf(n) +
         ", " + var(runs, "combine") + ", fl_sort_options);");
    break;
  }
  case Node::Fold: {
    auto& r = *n.get<ReduceStage>();
    declareCombine(n, r);
    line("auto " + var(n, "same") + " = " + sameKeys(keysOf(r.keyOrder), r.elementType) + ";");
    line("flow::stream::fold_groups<" + type(r.elementType) + ", decltype(" + var(n, "same") + "), decltype(" +
         var(n, "combine") + ")> " + var(n, "fold") + "(" + var(n, "same") + ", " + var(n, "combine") + ");");
    break;
  }
  case Node::Unique: {
    auto& u = *n.get<UniqueStage>();
    const std::string T = type(u.elementType);
    const std::string same = uniqueKeysEqual(u);
    if (same.empty()) {
      line("flow::stream::first_of_group<" + T + "> " + var(n, "unique") + ";");
      break;
    }
    line("auto " + var(n, "same") + " = " + same + ";");
    line("flow::stream::first_of_group<" + T + ", decltype(" + var(n, "same") + ")> " + var(n, "unique") + "(" +
         var(n, "same") + ");");
    break;
  }
  case Node::Take:
    line("flow::stream::take_count " + var(n, "take") + "(" + expr(*n.get<TakeStage>()->count) + ");");
    break;
  case Node::WriteFile: {
    auto& w = *n.get<WriteStmt>();
    line("flow::io::file_writer<" + type(w.pipeline->elementType) + "> " + var(n, "out") + "(" + path(w.path) +
         ", flow::io::typed_file_memory<" + type(w.pipeline->elementType) + ">(" + memoryOf(n) + "));");
    break;
  }
  case Node::WriteText: {
    auto& w = *n.get<WriteStmt>();
    line("flow::script::text_writer<" + type(w.pipeline->elementType) + ", " + textFields(w.pipeline->elementType) +
         "> " + var(n, "out") + "(" + path(w.path) + ");");
    break;
  }
  default: break;
  }
}

void Generator::consume(const Node& from, const std::string& v, const std::set<int>& inSegment) {
  line("++" + counter(from) + ".elements;");
  for (int c : consumers_[from.id])
    if (inSegment.count(c)) emitNode(plan_.nodes[c], v, inSegment);
}

void Generator::emitNode(const Node& n, const std::string& in, const std::set<int>& inSegment) {
  const std::string v = var(n, "v");
  switch (n.kind) {
  case Node::Map: {
    auto& m = *n.get<MapStage>();
    line("{");
    Indent x(*this);
    line("const auto& " + name(m.varSymbol) + " = " + in + ";");
    line("const " + type(m.elementType) + " " + v + " = " + expr(*m.body) + ";");
    consume(n, v, inSegment);
    --indent_;
    line("}");
    ++indent_;
    break;
  }
  case Node::Filter: {
    auto& f = *n.get<FilterStage>();
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      line("if (" + expr(*f.cond) + ") {");
      {
        Indent y(*this);
        consume(n, in, inSegment);
      }
      line("}");
    }
    line("}");
    break;
  }
  case Node::Unique:
    line("if (" + var(n, "unique") + ".admit(" + in + ")) {");
    {
      Indent x(*this);
      consume(n, in, inSegment);
    }
    line("}");
    break;
  case Node::Take:
    line("if (" + var(n, "take") + ".admit()) {");
    {
      Indent x(*this);
      consume(n, in, inSegment);
    }
    line("}");
    break;
  case Node::ForStage: {
    auto& f = *n.get<ForStage>();
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      emitStageStatements(n, f.body);
    }
    line("}");
    break;
  }
  case Node::SortRuns:
  case Node::ReduceRuns: line(var(n, "runs") + ".push(" + in + ");"); break;
  case Node::Concat: line(var(n, "emit") + "(" + in + ");"); break;
  case Node::Fold: line(var(n, "fold") + ".push(" + in + ", " + var(n, "emit") + ");"); break;
  case Node::Branch: consume(n, in, inSegment); break;
  case Node::Materialize: line(var(n, "mat") + ".push_back(" + in + ");"); break;
  case Node::VectorBuild: line(name(n.get<VectorDecl>()->symbol) + ".push_back(" + in + ");"); break;
  case Node::VectorRefill: line(var(n, "new") + ".push_back(" + in + ");"); break;
  case Node::WriteFile:
  case Node::WriteText: line(var(n, "out") + ".push(" + in + ");"); break;
  case Node::Aggregate: {
    const std::string acc = aggregateVar(n);
    switch (*n.get<CallExpr>()->builtin) {
    case ast::Builtin::Count: line("++" + acc + ";"); break;
    case ast::Builtin::Sum:
      if (n.get<CallExpr>()->type->isInteger()) // wraps around, like all integer arithmetic
        line(acc + " = flow::script::add<" + type(n.get<CallExpr>()->type) + ">(" + acc + ", " + in + ");");
      else
        line(acc + " += " + in + ";");
      break;
    default: {
      const bool min = *n.get<CallExpr>()->builtin == ast::Builtin::Min;
      const sema::Type* t = n.get<CallExpr>()->type;
      line("if (!" + var(n, "any") + " || " + (min ? keyLess(t, in, acc) : keyLess(t, acc, in)) + ") {");
      line("  " + acc + " = " + in + ";");
      line("  " + var(n, "any") + " = true;");
      line("}");
    }
    }
    break;
  }
  case Node::Loop: {
    auto& f = *n.get<ForInStmt>();
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      // Its body is in a lambda when its pipeline has a for stage: `break` then sets the
      // flag its source loop tests, and `continue` returns.
      bool inLambda = downstreamOfLambda(n, inSegment);
      std::string stop = inLambda ? var(n, "stop") : "";
      loops_.push_back({inLambda, stop});
      emitStatements(f.body);
      loops_.pop_back();
    }
    line("}");
    break;
  }
  default: break;
  }
}

void Generator::emitStageStatements(const Node& stage, const std::vector<StmtPtr>& body) {
  // A for stage's body or end block: `emit` calls the stage's downstream lambda; break
  // and continue are not allowed here (sema).
  emitTargets_.push_back(var(stage, "emit"));
  loops_.push_back({false, ""});
  emitStatements(body);
  loops_.pop_back();
  emitTargets_.pop_back();
}

void Generator::finishNode(const Node& n) {
  switch (n.kind) {
  case Node::SortRuns:
  case Node::ReduceRuns:
    // The last runs are written before the phase ends, so their I/O counts in it.
    line("auto " + var(n, "sorted") + " = " + var(n, "runs") + ".result();");
    break;
  case Node::Fold:
    if (!pulled_.count(n.id)) line(var(n, "fold") + ".finish(" + var(n, "emit") + "); // the last group");
    break;
  case Node::ForStage: {
    auto& f = *n.get<ForStage>();
    if (!f.hasEnd) break;
    line("{ // end block of the for stage at " + describe(f.loc) +
         ", after its last element");
    {
      Indent x(*this);
      emitStageStatements(n, f.end);
    }
    line("}");
    break;
  }
  case Node::WriteFile:
  case Node::WriteText: line(var(n, "out") + ".finish();"); break;
  case Node::ReadFile:
  case Node::ScanVector:
  case Node::Reread:
    // The plan gives a reader's buffers to the phases after its own; the reader object
    // lives to the end of the statement.
    line(var(n, "in") + ".close(); // its buffers go back as its phase ends");
    break;
  case Node::Materialize: line(var(n, "mat") + ".flush();"); break;
  case Node::VectorBuild:
    // Built: its cached blocks go back (the plan gives them to this phase only; a vector
    // built in a loop body would hold them through the round's later phases).
    line(name(n.get<VectorDecl>()->symbol) + ".release_cache(); // written, its buffers go back");
    break;
  case Node::VectorRefill: line(var(n, "new") + ".flush(); // written within the phase"); break;
  case Node::Aggregate: {
    const ast::Builtin fn = *n.get<CallExpr>()->builtin;
    if (fn == ast::Builtin::Min || fn == ast::Builtin::Max)
      line("if (!" + var(n, "any") + ") throw flow::script::script_error(std::string(" + where(n.loc) + ") + \": " +
           ast::info(fn).name + " of an empty stream\");");
    break;
  }
  default: break;
  }
}

} // namespace flow::codegen
