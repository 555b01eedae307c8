// Pipelines, generated from the plan's nodes: each segment (a phase, or the part of a
// nested pipeline between sorts) is one loop per source, the stages inlined into it in
// the order the elements flow; a sort's run formation ends a segment, its merge starts
// the next. The nodes are the runtime's (flow/stream, flow/algo, flow/containers): the
// generated code composes them and inlines only the script's own per-element code.
#include "codegen/generator.hpp"

#include "ast/visit.hpp"

#include "flow/escape.hpp"

#include <algorithm>
#include <functional>

namespace flow::codegen {

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

std::string Generator::runOptions(const Node& n) const {
  return "fl_sort_options.merged_within(" + memoryOf(plan_.nodes[static_cast<std::size_t>(n.partner)]) + ")";
}

NodeCodegen& Generator::codeOf(const Node& n) { return codegen_[n.kind]; }

// What a kind's class generates where it says nothing else.
std::string NodeCodegen::pullSource(const Node& n) const { return g->var(n, "in"); }
void NodeCodegen::loop(const Node& n, const Segment& segment) { g->pullLoop(n, segment); }
const sema::Type* NodeCodegen::outputType(const Node& n) const {
  throw std::logic_error(std::string("codegen: a ") + n.kindName() + " node has no downstream lambda");
}
void NodeCodegen::element(const Node& n, const std::string&, const Segment&) {
  throw std::logic_error(std::string("codegen: a ") + n.kindName() + " node takes no elements");
}

bool NodeCodegen::pullNode(const Node& n, const std::string& call, const std::string& args) {
  g->line("auto " + g->var(n, "in") + " = flow::stream::" + call + "(" + g->pulledInput(g->plan_.nodes[n.inputs[0]]) +
          (args.empty() ? "" : ", " + args) + ");");
  return true;
}

void NodeCodegen::passIf(const Node& n, const std::string& condition, const std::string& in, const Segment& segment) {
  g->block("if (" + condition + ") {", [&] { g->consume(n, in, segment); });
}

NodeCodegenTable::NodeCodegenTable(Generator& g) : g_(g), classes_(plan::kNodeKinds), headers_(plan::kNodeKinds) {
  addSourceCodegen(*this);
  addSortCodegen(*this);
  addReduceCodegen(*this);
  addCombineCodegen(*this);
  addStageCodegen(*this);
  addSequenceCodegen(*this);
  addSinkCodegen(*this);
  addContainerCodegen(*this);
  for (size_t k = 0; k < classes_.size(); ++k)
    if (!classes_[k])
      throw std::logic_error(std::string("codegen: no class generates ") +
                             Node::traitsOf(static_cast<Node::Kind>(k)).label + " nodes (codegen/nodes/)");
}

void NodeCodegenTable::put(Node::Kind kind, std::unique_ptr<NodeCodegen> c, const std::vector<std::string>& headers) {
  if (classes_[kind]) throw std::logic_error(std::string("codegen: two classes generate ") + Node::traitsOf(kind).label + " nodes");
  c->g = &g_;
  classes_[kind] = std::move(c);
  headers_[kind] = headers;
}

void NodeCodegenTable::addPlain(std::initializer_list<Node::Kind> kinds) {
  for (Node::Kind k : kinds) put(k, std::make_unique<NodeCodegen>(), {});
}

bool Generator::hasDownstreamLambda(const Node& n) { return codeOf(n).downstreamLambda(n); }

namespace {
/// The pipeline a statement or an aggregate runs (null for an aggregate of a name).
const ast::Pipeline* pipelineOf(const plan::Owner& owner) {
  if (auto* c = std::get_if<const CallExpr*>(&owner)) {
    auto* arg = (*c)->args[0]->as<PipelineArgExpr>();
    return arg ? arg->pipeline.get() : nullptr;
  }
  const Stmt* s = std::get<const Stmt*>(owner);
  if (auto* w = s->as<WriteStmt>()) return w->pipeline.get();
  if (auto* f = s->as<ForInStmt>()) return f->pipeline.get();
  if (auto* v = s->as<VectorDecl>()) return v->pipeline.get();
  if (auto* a = s->as<AssignStmt>()) return a->pipeline.get();
  return nullptr;
}
} // namespace

void Generator::emitOwner(const plan::Owner& owner, bool topLevel) {
  // Aggregates in the pipeline's arguments (`range(0, count(…))`) run first.
  if (const ast::Pipeline* p = pipelineOf(owner)) hoistAggregates(ast::aggregatesBefore(*p));
  std::vector<int> nodes;
  for (const Node& n : plan_.nodes)
    if (n.owner == owner && n.traits().inPipeline()) nodes.push_back(n.id);
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
      seg = std::max(seg, it->second + (plan_.nodes[in].traits().endsSegment ? 1 : 0));
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
    if (n.traits().startsStretch()) return; // a source; a sort's merge or a re-read starts from its runs
    for (int in : n.inputs) runIn(in, seg);
  };
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = plan_.nodes[*it];
    if (!n.traits().pullsInputs() && n.traits().pipeline != plan::PipelineRole::one_after) continue;
    for (int in : n.inputs) runIn(in, segmentOf[n.id]);
  }
  // Results an aggregate hands to the expression that called it live beyond the loops;
  // a materialized stream (declared at the start of the program) is written anew each
  // time this statement runs.
  for (int id : nodes) codeOf(plan_.nodes[id]).beforeStatement(plan_.nodes[id]);
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
    if (topLevel) {
      line("fl_program.end_phase();");
      freeAfterPhase(plan_.nodes[inSeg.front()].phase);
    }
  }
  --indent_;
  line("}");
}

void Generator::freeAfterPhase(int phase) {
  // The plan gives a queue's memory only to its live phases, and a vector's buffers only
  // to the phases that push to it, build it or index it.
  for (std::vector<ScopedContainer>& block : scopedContainers_)
    for (auto c = block.begin(); c != block.end();) {
      const bool sameLoops = c->loopDepth == loops_.size();
      if (sameLoops && c->queue && c->queue->livePhases.back() == phase) {
        line("fl_" + name(c->symbol) + "_storage.reset(); // " + c->queue->name + ": its last phase has ended");
        c = block.erase(c);
        continue;
      }
      if (sameLoops && !c->queue)
        for (const Node& n : plan_.nodes)
          if (n.kind == Node::VectorPush && n.phase == phase && n.get<Symbol>() == c->symbol) {
            line(name(c->symbol) + ".release_cache(); // " + n.name + ": its phase has ended");
            break;
          }
      ++c;
    }
}

std::string Generator::runtimeCount(const Node& n) { return codeOf(n).count(n); }

std::string Generator::sumOfCounts(const Node& n) {
  std::string all;
  for (int in : n.inputs) {
    const std::string c = runtimeCount(plan_.nodes[in]);
    if (c.empty()) return "";
    all += (all.empty() ? "" : " + ") + c;
  }
  return all;
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
    if (!inSegment.count(id) && n.traits().pipeline != plan::PipelineRole::sort_output) return;
    if (!n.traits().startsPull() && !n.traits().passesPull())
      throw std::logic_error("codegen: an input read side by side that cannot be pulled: " + n.name);
    pulled.insert(id);
    if (n.traits().passesPull())
      for (int in : n.inputs) pull(in);
  };
  for (int id : nodes)
    if (plan_.nodes[id].traits().pullsInputs())
      for (int in : plan_.nodes[id].inputs) pull(in);
  // 1. State of the nodes (sorters, writers, counters, pull nodes), in flow order.
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    if (!pulled.count(id) || !codeOf(n).declarePulled(n)) codeOf(n).declare(n);
  }
  std::vector<std::string> stops;
  for (int id : nodes)
    if (plan_.nodes[id].kind == Node::Loop && downstreamOfLambda(plan_.nodes[id], inSegment)) {
      stops.push_back(var(plan_.nodes[id], "stop"));
      line("bool " + stops.back() + " = false;");
    }
  const Segment segment{inSegment, stops, phase};
  // The segment's loops: one per node that starts a stretch here and is not pulled by
  // another (a merge, join or zip loops over what it pulls).
  std::vector<int> roots;
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    bool root = !pulled.count(id);
    for (int in : n.inputs) root = root && (!inSegment.count(in) || n.traits().pullsInputs());
    if (root) roots.push_back(id);
  }
  // The phase's elements for the progress bar: what its loops over pulled sources will
  // count (advance), now that the merges and readers exist; a generate or range loop adds
  // its count when it starts.
  if (phase) {
    std::string expected;
    for (int id : roots)
      if (const std::string c = runtimeCount(plan_.nodes[id]); !c.empty())
        expected += (expected.empty() ? "" : " + ") + c;
    if (!expected.empty()) line("fl_program.expect(" + expected + ");");
  }
  // 2. The downstream of each for stage, concat and fold as a lambda they call; later
  //    ones first, since an earlier one's lambda calls the later ones.
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = plan_.nodes[*it];
    if (!hasDownstreamLambda(n)) continue;
    line("auto " + var(n, "emit") + " = [&](const " + type(codeOf(n).outputType(n)) + "& " + var(n, "v") + ") {");
    {
      // The downstream's own emits (in a loop body there) belong to an enclosing for
      // stage, so this lambda is not an emit target while its body is generated.
      Indent in(*this);
      ++lambdaDepth_;
      for (const std::string& stop : stops) line("if (" + stop + ") return; // a loop downstream has stopped");
      consume(n, var(n, "v"), segment);
      --lambdaDepth_;
    }
    line("};");
  }
  // 3. One loop per root.
  for (int id : roots) codeOf(plan_.nodes[id]).loop(plan_.nodes[id], segment);
  // 4. What ends with the segment: files are completed, vectors flushed.
  for (int id : nodes) codeOf(plan_.nodes[id]).finish(plan_.nodes[id]);
}

void Generator::pullLoop(const Node& n, const Segment& segment) {
  const std::string source = codeOf(n).pullSource(n), v = var(n, "v");
  block("for (; !" + source + ".empty(); ++" + source + ") {", [&] {
    stopChecks(segment.stops);
    // maybe_unused: a consumer such as count() does not look at the element
    line("[[maybe_unused]] const auto& " + v + " = *" + source + ";");
    consume(n, v, segment);
  });
}

bool Generator::downstreamOfLambda(const Node& n, const std::set<int>& inSegment) {
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

std::string Generator::pulledInput(const Node& input) {
  // A stream read again by later statements is written out as it is pulled.
  if (const Node* m = materializerOf(input)) {
    line("auto " + var(input, "tee") + " = flow::stream::tee(" + codeOf(input).pullSource(input) + ", " + var(*m, "mat") +
         ");");
    return var(input, "tee");
  }
  return codeOf(input).pullSource(input);
}

const Node* Generator::materializerOf(const Node& n) const {
  for (int c : consumers_[n.id])
    if (plan_.nodes[c].kind == Node::Materialize) return &plan_.nodes[c];
  return nullptr;
}

void Generator::consume(const Node& from, const std::string& v, const Segment& segment) {
  if (batchBody_ >= 0 && from.batchFirst == batchBody_) {
    // In a batched stretch's function, on any thread: its stages count in the batch's
    // counters (added to the program's as batches end), and its last stage's elements go
    // out of the batch, to be counted where the stretch's downstream takes them.
    if (from.batchLast == from.id) return line("fl_out(" + v + ");");
    int stage = 0;
    for (const Node* n = &from; n->id != n->batchFirst; n = &plan_.nodes[n->inputs[0]]) ++stage;
    counter(from);
    line("++fl_counted[" + std::to_string(stage) + "];");
  } else {
    line("++" + counter(from) + ".elements;");
  }
  for (int c : consumers_[from.id])
    if (segment.nodes.count(c)) codeOf(plan_.nodes[c]).element(plan_.nodes[c], v, segment);
}

void Generator::emitStageStatements(const std::vector<StmtPtr>& body, const std::string& emitTo) {
  // A for stage's body or end block: `emit` calls emitTo (the stage's downstream lambda,
  // or a batch's output); break and continue are not allowed here (sema).
  emitTargets_.push_back(emitTo);
  loops_.push_back({false, ""});
  emitStatements(body);
  loops_.pop_back();
  emitTargets_.pop_back();
}

} // namespace flow::codegen
