// Builds the flow graph of a checked script: one node per source, stage, sort half,
// container and sink, with element counts, in phases. Memory and I/O are assigned
// afterwards (memory.cpp).
#include "plan/flow_graph.hpp"

#include "flow/format.hpp"
#include "flow/plan/input_size.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ast/visit.hpp"
#include "parse/parser.hpp"
#include "flow/escape.hpp"
#include "flow/plan/join_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <iostream>

namespace flow::plan {

using namespace flow::ast;
using sema::ConstValue;
using sema::Symbol;

namespace {

/// Bytes one element takes in a text file: about 12 characters per number with its
/// separator, 24 per str (a line of read_lines: 24 and its newline).
uint64_t textBytes(const sema::Type* t) {
  if (t->isStr()) return 25;
  if (t->kind == sema::Type::Array) return t->length * textBytes(t->element);
  if (t->kind == sema::Type::Record) {
    uint64_t sum = 0;
    for (const sema::FieldInfo& f : t->record->fields) sum += textBytes(f.type);
    return sum;
  }
  return 12;
}

} // namespace

GraphBuilder::GraphBuilder(const sema::CheckedProgram& program, Plan& plan, DiagnosticEngine& diags,
                           const PlanOptions& options)
    : program_(program), plan_(plan), diags_(diags), options_(options) {}

// ------------------------------------------------------------------------------- params

bool GraphBuilder::evaluateParams() {
  const SourceFile* file = program_.ast->file;
  for (const auto& [name, text] : options_.setParams) {
    bool found = false;
    for (const Symbol* s : program_.symbolsOf(Symbol::Param)) found = found || s->name == name;
    if (!found) {
      diags_.error(nullptr, {}, "--set " + name + "=" + text + ": the script has no param '" + name + "'");
      return false;
    }
  }
  for (const Symbol* s : program_.symbolsOf(Symbol::Param)) {
    if (s->type->kind == sema::Type::Path) { // a file name: --set input=FILE as given
      auto set = options_.setParams.find(s->name);
      const auto* init = static_cast<const ParamDecl*>(s->decl)->init->as<StringLitExpr>();
      const std::string value = set != options_.setParams.end() ? set->second : init ? init->literal.text() : "";
      plan_.pathValues[s] = value;
      plan_.params.emplace_back(s->name, flow::json_string(value)); // explain --format=json pastes it
      continue;
    }
    std::optional<ConstValue> value;
    auto set = options_.setParams.find(s->name);
    if (set != options_.setParams.end()) {
      value = parseSetValue(s, set->second);
      if (!value) return false;
    } else {
      auto* decl = static_cast<const ParamDecl*>(s->decl);
      std::string why;
      value = sema::evaluate(*decl->init, [this](const Symbol* p) { return paramValue(p); }, &why);
      if (!value) {
        diags_.error(file, decl->init->loc, "cannot compute the default of param '" + s->name + "': " + why);
        return false;
      }
    }
    values_[s] = *value;
    plan_.params.emplace_back(s->name, value->str());
  }
  return true;
}

std::optional<ConstValue> GraphBuilder::parseSetValue(const Symbol* param, const std::string& text) {
  // The value is a Flow expression of literals (4e9, 1 << 30, 256 MiB), typed as the param.
  SourceFile source("--set " + param->name, text);
  DiagnosticEngine local(std::cerr);
  ExprPtr e = parse::parseExpression(text, source, local, parse::LocationMap{});
  std::string why = "it is not a number";
  std::optional<ConstValue> v;
  if (e) {
    // Literals carry no types yet; give integer literals the param's type by value.
    v = sema::evaluate(*e, [](const Symbol*) { return std::nullopt; }, &why);
  }
  local.flush();
  if (v) {
    const sema::Type* t = param->type;
    if (t->isInteger()) {
      double d = v->asDouble();
      if (v->kind == ConstValue::Float && d != std::floor(d)) {
        why = text + " is not a whole number";
        v.reset();
      } else if (v->kind != ConstValue::Bool) {
        __int128 i = v->kind == ConstValue::Float ? static_cast<__int128>(d) : v->i;
        __int128 lo = t->isSigned() ? -(static_cast<__int128>(1) << (t->bits() - 1)) : 0;
        __int128 hi = t->isSigned() ? (static_cast<__int128>(1) << (t->bits() - 1)) - 1
                                    : (static_cast<__int128>(1) << t->bits()) - 1;
        if (i < lo || i > hi) {
          why = text + " does not fit in " + t->name();
          v.reset();
        } else {
          v = ConstValue::integer(i);
        }
      } else {
        why = "it is a bool, and " + param->name + " is " + t->name();
        v.reset();
      }
    } else if (t->isFloat() && v->kind != ConstValue::Bool) {
      v = ConstValue::floating(v->asDouble());
    } else if (t->kind == sema::Type::Bool && v->kind != ConstValue::Bool) {
      why = param->name + " is a bool: use true or false";
      v.reset();
    }
  }
  if (!v) diags_.error(nullptr, {}, "--set " + param->name + "=" + text + ": " + why);
  return v;
}

std::optional<ConstValue> GraphBuilder::paramValue(const Symbol* s) const {
  auto it = values_.find(s);
  if (it != values_.end()) return it->second;
  return std::nullopt;
}

double GraphBuilder::estimate(const Estimate& e) const {
  // With the params planned for (--set); sema has checked that it is constant.
  return count(*e.expr).value_or(e.value);
}

std::optional<double> GraphBuilder::count(const Expr& e) const {
  auto v = sema::evaluate(e, [this](const Symbol* s) { return paramValue(s); });
  if (!v || v->kind == ConstValue::Bool) return std::nullopt;
  return std::max(0.0, v->asDouble());
}

// -------------------------------------------------------------------------------- nodes

const Calibration::Measured* GraphBuilder::calibrated(int id) const {
  if (!options_.calibration) return nullptr;
  auto it = options_.calibration->nodes.find(id);
  return it == options_.calibration->nodes.end() ? nullptr : &it->second;
}

void GraphBuilder::calibrateCount(int id, double input) {
  const Calibration::Measured* c = calibrated(id);
  if (!c) return;
  Node& n = plan_.nodes[id];
  n.elements = input * c->fraction;
  n.calibrated = *c;
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, "%.4g", c->fraction);
  // in place of the assumption's note
  n.note = std::string("calibrated: ") + fraction + " of its input's elements (" + formatCount(c->elements) +
           " in the calibration run)";
}

int GraphBuilder::add(Node::Kind kind, std::string name, SourceLoc loc, int phase, double elements,
                      const sema::Type* type, std::vector<int> inputs, Payload payload) {
  Node n;
  n.id = static_cast<int>(plan_.nodes.size());
  n.kind = kind;
  n.name = std::move(name);
  n.loc = loc;
  n.phase = phase;
  n.elements = elements;
  n.elementBytes = type ? (kind == Node::ReadText || kind == Node::WriteText ? textBytes(type) : type->size()) : 0;
  n.inputs = std::move(inputs);
  if (!Node::holdsPayloadOf(kind, payload))
    throw std::logic_error(std::string("plan: a ") + Node::traitsOf(kind).label + " node made with another payload");
  n.payload = payload;
  n.owner = owner_;
  n.perElement = perElement_;
  for (int i : n.inputs) {
    n.counted = n.counted && plan_.nodes[i].counted;
    n.countedNow = n.countedNow || plan_.nodes[i].countedNow;
  }
  plan_.nodes.push_back(std::move(n));
  maxPhase_ = std::max(maxPhase_, phase);
  return plan_.nodes.back().id;
}

// -------------------------------------------------------------------------- the walk

void GraphBuilder::build() {
  for (size_t i = 0; i < program_.ast->items.size(); ++i) {
    statement_ = static_cast<int>(i);
    item_ = program_.ast->items[i].get();
    owner_ = item_;
    const int first = nextPhase_;
    const size_t before = plan_.nodes.size();
    topLevel(*program_.ast->items[i]);
    itemFirstPhase_.push_back({item_, first});
    // The cache of v[i] is sized for the statement's whole run (codegen gives it its
    // memory before the statement and takes it back after).
    for (size_t k = before; k < plan_.nodes.size(); ++k)
      if (Node& n = plan_.nodes[k]; n.kind == Node::VectorIndex) {
        n.livePhases.clear();
        for (int p = std::min(first, n.phase); p < std::max(nextPhase_, n.phase + 1); ++p) n.livePhases.push_back(p);
      }
  }
  finishScopes();
  std::vector<std::pair<const ast::Stmt*, int>> itemEnds; // top-level statement, its first phase
  for (const auto& [item, first] : itemFirstPhase_) itemEnds.push_back({item, first});
  for (const Node& n : plan_.nodes)
    if (n.traits().io == io_rule::writes_file) {
      const PathRef& p = n.get<WriteStmt>()->path;
      if (p.isParam()) plan_.writtenPathParams.insert(p.symbol);
      else if (p.literal.text() != "-") plan_.writtenFiles.insert(p.literal.text());
    }
  scaling();
  labelPhases();
  // A pop_below uses its queue in the phase it ends up in (a merge's or join's inputs
  // join the phase of the last of them).
  for (const Node& n : plan_.nodes)
    if (n.kind == Node::QueueBelow) plan_.nodes[queueOf_.at(n.get<MethodCallExpr>()->container)].livePhases.push_back(n.phase);
  // Queues live from their first to their last use.
  for (Node& n : plan_.nodes)
    if (n.kind == Node::Queue && !n.livePhases.empty()) {
      std::sort(n.livePhases.begin(), n.livePhases.end());
      int first = n.livePhases.front(), last = n.livePhases.back();
      n.livePhases.clear();
      for (int p = first; p <= last; ++p) n.livePhases.push_back(p);
      n.phase = first;
      // The statement whose phases hold its last: the one with the last first phase at
      // or before it.
      const Stmt* decl = n.get<PqDecl>();
      const bool topLevel = std::any_of(program_.ast->items.begin(), program_.ast->items.end(),
                                        [&](const StmtPtr& s) { return s.get() == decl; });
      if (topLevel)
        for (const auto& [item, start] : itemEnds)
          if (start <= last) n.lastUse = item;
    }
}

void GraphBuilder::scaling() {
  auto computableAtStart = [](const Expr& e) { // from literals and params only
    return sema::evaluate(e, [](const Symbol* s) { return s->kind == Symbol::Param ? s->value : std::nullopt; })
        .has_value();
  };
  for (Node& n : plan_.nodes) {
    Scaling& r = n.scaling;
    if (n.kind == Node::Generate && computableAtStart(*n.get<GenerateSource>()->count)) {
      r.kind = Scaling::GenerateCount;
    } else if (n.kind == Node::Range && computableAtStart(*n.get<RangeSource>()->begin) &&
               computableAtStart(*n.get<RangeSource>()->end)) {
      r.kind = Scaling::RangeBounds;
    } else if ((n.kind == Node::ReadFile || n.kind == Node::ReadText) && plan_.readsInput(*n.get<ReadSource>())) {
      r.kind = Scaling::InputFile; // a text file's lines: its size over the bytes a line is planned at
    } else if ((n.kind == Node::ReadFile || n.kind == Node::ReadText) && n.get<ReadSource>()->estimate &&
               computableAtStart(*n.get<ReadSource>()->estimate->expr)) {
      r.kind = Scaling::ReadEstimate;
    } else if (!n.inputs.empty()) {
      r = {n.traits().count == Count::sum_of_inputs ? Scaling::Sum : Scaling::From, n.inputs};
    } else if (n.kind == Node::ArrayAlloc) {
      if (computableAtStart(*n.get<ArrayDecl>()->length)) r.kind = Scaling::ArrayLength;
    } else if (n.kind == Node::ScanVector || n.kind == Node::VectorIndex) {
      // A scan's count is the sum of its builders' pushes: all of them before it. v[i]
      // keeps the last builder's scale (its accesses follow their loops': accessesByLoop).
      r.kind = n.kind == Node::ScanVector ? Scaling::Sum : Scaling::From;
      const Symbol* v = n.get<Symbol>();
      for (const Node& m : plan_.nodes)
        if (m.id < n.id && m.kind != Node::Materialize && m.storeWritten() == v) {
          if (n.kind == Node::VectorIndex) r.from.clear();
          r.from.push_back(m.id);
        }
    } else if (n.kind == Node::Queue || n.kind == Node::VectorPush) {
      // Pushed once per element of the loop around them (the innermost around the first
      // push): that loop's scale. Pushes in no for loop (a while loop's) scale with the
      // last loop of the phase they start in; for a vector's, one planned before them
      // (a later one may read the vector: its scale would come from the pushes).
      r.kind = Scaling::From;
      if (auto loop = pushLoop_.find(n.id); loop != pushLoop_.end()) {
        r.from = {loop->second};
      } else {
        const int phase = n.kind == Node::Queue && !n.livePhases.empty() ? n.livePhases.front() : n.phase;
        for (const Node& m : plan_.nodes)
          if (m.id != n.id && m.phase == phase && (m.kind == Node::Loop || m.kind == Node::ForStage) &&
              (n.kind == Node::Queue || m.id < n.id))
            r.from = {m.id};
      }
    }
  }
  // Inputs come before their nodes; a queue or push may take from a loop planned later.
  std::vector<int> state(plan_.nodes.size(), 0); // 0 new, 1 on the path, 2 done
  std::function<void(int)> visit = [&](int id) {
    if (state[id]) return; // a cycle (none is planned) is cut rather than followed
    state[id] = 1;
    for (int f : plan_.nodes[id].scaling.from) visit(f);
    state[id] = 2;
    plan_.scalingOrder.push_back(id);
  };
  for (const Node& n : plan_.nodes) visit(n.id);
}

void GraphBuilder::labelPhases() {
  // "sort by src_dst: merge → unique by keys → for e loop → mis.push (mis.flow:26)": the
  // nodes the phase runs, in the order the elements flow, then where its statement is. The
  // same label is in flowc explain, the generated program's progress bar, --stats and
  // --trace, so a user can match them.
  // Phases without pipeline nodes (a queue's push, an array) keep the statement's label.
  std::string script = program_.ast->file ? program_.ast->file->path() : std::string("script");
  if (const size_t slash = script.rfind('/'); slash != std::string::npos) script.erase(0, slash + 1);
  for (Phase& ph : plan_.phases) {
    std::vector<std::string> names;
    for (const Node& n : plan_.nodes) {
      // Containers, arrays and caches live through several phases; a branch only hands on.
      if (n.phase != ph.id || n.spansPhases() || n.traits().pipeline == PipelineRole::fork) continue;
      std::string name = n.name;
      // "sort by k (merge)" reads "sort by k: merge" in a chain
      for (const char* part : {" (merge)", " (runs)"})
        if (name.size() > std::strlen(part) && name.compare(name.size() - std::strlen(part), std::string::npos, part) == 0)
          name = name.substr(0, name.size() - std::strlen(part)) + ": " + std::string(part + 2, std::strlen(part) - 3);
      if (names.empty() || names.back() != name) names.push_back(name);
    }
    if (names.empty()) continue;
    constexpr size_t most = 6; // a long chain keeps its first and last nodes
    if (names.size() > most) {
      names.erase(names.begin() + most - 2, names.end() - 1);
      names.insert(names.end() - 1, "…");
    }
    std::string chain;
    for (const std::string& n : names) chain += (chain.empty() ? "" : " → ") + n;
    const std::string where =
        ph.loc.origin == 0 && ph.loc.valid() ? script + ":" + std::to_string(ph.loc.line) : describe(ph.loc);
    ph.label = chain + " (" + where + ")";
  }
}

void GraphBuilder::beginPhase(const std::string& label, SourceLoc loc) {
  base_ = nextPhase_;
  maxPhase_ = base_;
  label_ = label;
  labelLoc_ = loc;
}

void GraphBuilder::endPhase() {
  for (int p = base_; p <= maxPhase_; ++p) {
    Phase ph;
    ph.id = p;
    ph.label = label_ + (maxPhase_ > base_ ? " (" + std::to_string(p - base_ + 1) + "/" +
                                                 std::to_string(maxPhase_ - base_ + 1) + ")"
                                           : "");
    ph.loc = labelLoc_;
    ph.loops = loops_;
    for (const WhileStmt* w : loops_) {
      if (w->rounds) ph.rounds *= estimate(*w->rounds);
      else ph.roundsAssumed = true;
    }
    plan_.phases.push_back(ph);
  }
  nextPhase_ = maxPhase_ + 1;
}

std::string GraphBuilder::at(SourceLoc loc) { return describe(loc); }

namespace {
/// The streams a statement writes out first, in a phase of their own, so that every read
/// of them reads them back: those it reads more than once with one of the reads an input
/// of a merge, join, zip or concat (these pull their inputs, or run them one after the
/// other, so the stream cannot be branched to its other readers), and those read by a
/// loop that may `break` and read again elsewhere (written out as the loop goes, they
/// would hold only what the loop read before it stopped).
std::set<const Symbol*> streamsToWriteFirst(const Stmt& statement) {
  struct Reads : Visitor {
    std::map<const Symbol*, int> count;
    std::set<const Symbol*> mergeInputs, readByBreakingLoop;
    static const Symbol* stream(const Expr& e) {
      auto* n = e.as<NameExpr>();
      return n && n->symbol && n->symbol->kind == Symbol::Stream ? n->symbol : nullptr;
    }
    void read(const Symbol* s) {
      if (++count[s] == 1) walk(*s->pipeline); // the streams it reads are read once per run of it
    }
    bool visit(const Source& src) override {
      // An input that reads the stream up to the node (no sort in between to end the
      // pipeline there): the stream's elements would be pulled, or pushed in sequence.
      // (withoutInsertedSort: an input of a join that may be a hash join, which reads it
      // without the sort sema inserted for a merge join.)
      auto input = [&](const Pipeline& in, bool withoutInsertedSort = false) {
        for (const StagePtr& st : in.stages) {
          if (auto* so = st->as<SortStage>(); so && withoutInsertedSort && !so->insertedFor.empty()) continue;
          if (st->as<SortStage>() || (st->as<ReduceStage>() && !st->as<ReduceStage>()->inputSorted)) return;
        }
        if (auto* e = in.source->as<ExprSource>(); e && stream(*e->expr)) mergeInputs.insert(stream(*e->expr));
      };
      if (auto* m = src.as<MergeSource>())
        for (const PipelinePtr& in : m->inputs) input(*in);
      if (auto* j = src.as<JoinSource>())
        for (const PipelinePtr& in : j->inputs) input(*in, j->orderFree);
      if (auto* z = src.as<ZipSource>())
        for (const PipelinePtr& in : z->inputs) input(*in);
      if (auto* c = src.as<ConcatSource>())
        for (const PipelinePtr& in : c->inputs) input(*in);
      if (auto* e = src.as<ExprSource>(); e && stream(*e->expr)) read(stream(*e->expr));
      return true;
    }
    bool visit(const Expr& e) override {
      if (auto* c = e.as<CallExpr>(); c && c->aggregate && stream(*c->args[0])) read(stream(*c->args[0]));
      return true;
    }
    bool visit(const Stmt& st) override {
      if (auto* f = st.as<ForInStmt>(); f && mayBreak(*f)) {
        StreamsOf of;
        of.walk(*f->pipeline);
        readByBreakingLoop.insert(of.streams.begin(), of.streams.end());
      }
      return true;
    }
    /// Whether a `break` in the loop's body ends this loop (not a loop nested in it).
    static bool mayBreak(const ForInStmt& f) {
      struct Finder : Visitor {
        bool found = false;
        bool visit(const Stmt& st) override {
          if (auto* j = st.as<JumpStmt>(); j && !j->isContinue) found = true;
          return !st.as<ForInStmt>() && !st.as<WhileStmt>();
        }
        bool visit(const Pipeline&) override { return false; }
      } finder;
      for (const StmtPtr& b : f.body) finder.walk(*b);
      return finder.found;
    }
    /// The streams a pipeline reads, directly or through the streams it reads.
    struct StreamsOf : Visitor {
      std::set<const Symbol*> streams;
      bool visit(const Source& src) override {
        if (auto* e = src.as<ExprSource>(); e && stream(*e->expr) && streams.insert(stream(*e->expr)).second)
          walk(*stream(*e->expr)->pipeline);
        return true;
      }
    };
  } reads;
  reads.walk(statement);
  std::set<const Symbol*> result;
  for (const Symbol* s : reads.mergeInputs)
    if (reads.count[s] > 1) result.insert(s);
  for (const Symbol* s : reads.readByBreakingLoop)
    if (s->consumers.size() > 1) result.insert(s);
  return result;
}
} // namespace

void GraphBuilder::topLevel(const Stmt& s) {
  writeFirst_ = streamsToWriteFirst(s);
  // Loops, writes and vectors made from pipelines open phases of their own; other
  // statements run pipelines only through aggregates (count, sum, min, max) and
  // containers only through calls. All are walked with a count of one execution.
  statements(s, -1, 1.0);
}

void GraphBuilder::vectorBuild(const VectorDecl& d, const AssignStmt* refill, int phase, double executions) {
  // `vector v = pipeline;` or `v = pipeline;` (refill): a phase of its own at the top
  // level, else part of the phase it runs in.
  const Symbol* v = refill ? refill->vector : d.symbol;
  const Owner outer = owner_;
  owner_ = refill ? static_cast<const Stmt*>(refill) : static_cast<const Stmt*>(&d);
  const bool own = phase < 0;
  const Pipeline& p = refill ? *refill->pipeline : *d.pipeline;
  aggregatesBefore(p, phase, executions);
  if (own) beginPhase(refill ? v->name + " = … at " + at(refill->loc) : "vector " + v->name, p.loc);
  Flow in = pipeline(p, own ? base_ : phase, executions);
  const Node& src = plan_.nodes[in.node];
  vectorSize_[v] = {src.elements / std::max(1.0, executions), !src.counted};
  if (refill) {
    add(Node::VectorRefill, v->name + " = …", refill->loc, in.phase, src.elements, v->type, {in.node}, refill);
  } else {
    plan_.declarationNode[&d] =
        add(Node::VectorBuild, "vector " + v->name, d.loc, in.phase, src.elements, v->type, {in.node}, &d);
  }
  if (own) endPhase();
  owner_ = outer;
}

void GraphBuilder::forIn(const ForInStmt& f, int phase, double multiplier) {
  Flow in = pipeline(*f.pipeline, phase, multiplier);
  const Node& src = plan_.nodes[in.node];
  int loop = add(Node::Loop, "for " + f.var + " loop", f.loc, in.phase, src.elements, f.pipeline->elementType,
                 {in.node}, &f);
  loopNodes_.push_back(loop);
  for (const StmtPtr& b : f.body) statements(*b, in.phase, plan_.nodes[loop].elements);
  loopNodes_.pop_back();
}

/// Finds what a statement or expression runs besides its own code: loops, writes and
/// aggregates (each with its pipeline), and pushes into queues and vectors.
class GraphBuilder::BodyWalker : public Visitor {
public:
  BodyWalker(GraphBuilder& g, int phase, double executions) : g_(g), phase_(phase), executions_(executions) {}

  bool visit(const Stmt& s) override {
    if (auto* f = s.as<ForInStmt>()) {
      if (f->overPieces) { // a loop in memory: its string and its body run where it is
        walk(*f->pipeline->source->as<ExprSource>()->expr);
        for (const StmtPtr& b : f->body) walk(*b);
        return false;
      }
      g_.nestedForIn(*f, phase_, executions_);
      return false;
    }
    if (auto* w = s.as<WriteStmt>()) {
      g_.nestedWrite(*w, phase_, executions_);
      return false;
    }
    if (auto* d = s.as<StreamDecl>()) { // aggregates in its arguments run where it is declared
      g_.aggregatesBefore(*d->pipeline, phase_, executions_);
      return false;
    }
    if (auto* d = s.as<VectorDecl>()) {
      if (d->pipeline) g_.vectorBuild(*d, nullptr, phase_, executions_);
      return false;
    }
    if (auto* a = s.as<AssignStmt>(); a && a->vector) {
      g_.vectorBuild(*a->vector->decl->as<VectorDecl>(), a, phase_, executions_);
      return false;
    }
    if (auto* q = s.as<PqDecl>()) {
      int n = g_.add(Node::Queue, "pq " + q->name, q->loc, 0, 0, q->symbol->type, {}, q);
      g_.queueOf_[q->symbol] = n;
      g_.plan_.declarationNode[q] = n;
      return false;
    }
    if (auto* a = s.as<ArrayDecl>()) {
      walk(*a->length); // aggregates in the length and the value run first
      if (a->init) walk(*a->init);
      g_.arrayDecl(*a, phase_);
      return false;
    }
    if (auto* as = s.as<AssignStmt>()) {
      // `v[i] = x` changes a block in the vector's cache (read, then written back).
      auto* i = as->target->as<IndexExpr>();
      auto* n = i ? i->object->as<NameExpr>() : nullptr;
      if (n && n->symbol && n->symbol->kind == sema::Symbol::Vector)
        g_.vectorIndex(*n->symbol, i->loc, phase_, executions_, true);
      if (i && n) {
        walk(*i->index);
        walk(*as->value);
        return false;
      }
    }
    if (auto* w = s.as<WhileStmt>(); w && phase_ >= 0) {
      // Inside a phase, the body runs `~ N` times (1 without it) per execution.
      BodyWalker(g_, phase_, executions_ * (w->rounds ? g_.estimate(*w->rounds) : 1.0)).walkChildren(*w);
      return false;
    }
    if (phase_ < 0) {
      // Outside loops, an array declared in a body lives until the body ends.
      auto body = [&](const std::vector<StmtPtr>& b) {
        for (const StmtPtr& x : b) walk(*x);
        g_.endScope(b);
      };
      if (auto* b = s.as<BlockStmt>()) {
        body(b->body);
        return false;
      }
      if (auto* i = s.as<IfStmt>()) {
        walk(*i->cond);
        body(i->then);
        if (i->elseBranch) walk(*i->elseBranch);
        return false;
      }
      if (auto* w = s.as<WhileStmt>()) {
        // `~ N` rounds (1 without it): each pipeline of the body is a phase of its own
        // that runs N times.
        g_.loops_.push_back(w);
        walk(*w->cond);
        body(w->body);
        g_.loops_.pop_back();
        return false;
      }
    }
    return true;
  }
  bool visit(const Expr& e) override {
    if (auto* c = e.as<CallExpr>(); c && c->aggregate) {
      g_.aggregate(*c, phase_, executions_);
      return false;
    }
    if (auto* m = e.as<MethodCallExpr>()) g_.methodCall(*m, phase_, executions_);
    if (auto* i = e.as<IndexExpr>()) {
      auto* n = i->object->as<NameExpr>();
      if (n && n->symbol && n->symbol->kind == sema::Symbol::Vector)
        g_.vectorIndex(*n->symbol, i->loc, phase_, executions_, false);
    }
    return true;
  }
  // Pipelines are planned by the loop, write or aggregate that runs them.
  bool visit(const Pipeline&) override { return false; }

private:
  GraphBuilder& g_;
  int phase_;
  double executions_;
};

void GraphBuilder::statements(const Stmt& s, int phase, double executions) {
  // `phase` < 0: a top-level statement; each loop, write and aggregate in it opens
  // phases of its own.
  BodyWalker(*this, phase, executions).walk(s);
}

void GraphBuilder::nestedForIn(const ForInStmt& f, int phase, double executions) {
  const Owner outer = owner_;
  const bool outerPerElement = perElement_;
  owner_ = static_cast<const Stmt*>(&f);
  perElement_ = perElement_ || phase >= 0;
  aggregatesBefore(*f.pipeline, phase, executions);
  if (phase < 0) {
    beginPhase("for loop at " + at(f.loc), f.loc);
    forIn(f, base_, executions);
    endPhase();
  } else {
    forIn(f, phase, executions); // a loop inside a loop runs in the outer loop's phase
  }
  owner_ = outer;
  perElement_ = outerPerElement;
}

void GraphBuilder::nestedWrite(const WriteStmt& w, int phase, double executions) {
  const Owner outer = owner_;
  const bool outerPerElement = perElement_;
  owner_ = static_cast<const Stmt*>(&w);
  perElement_ = perElement_ || phase >= 0;
  const bool own = phase < 0;
  const std::string verb = w.csv ? "write_csv" : w.lines ? "write_lines" : w.text ? "write_text" : "write";
  aggregatesBefore(*w.pipeline, phase, executions);
  if (own) beginPhase(verb + " to " + plan_.pathLabel(w.path), w.loc);
  Flow in = pipeline(*w.pipeline, own ? base_ : phase, executions);
  add(w.text ? Node::WriteText : Node::WriteFile, verb + " " + plan_.pathLabel(w.path),
      w.loc, in.phase, plan_.nodes[in.node].elements, w.pipeline->elementType, {in.node}, &w);
  if (own) endPhase();
  owner_ = outer;
  perElement_ = outerPerElement;
}

void GraphBuilder::aggregatesBefore(const Pipeline& p, int phase, double executions) {
  // `range(0, count(…))`: outside loops each such aggregate is a phase of its own before
  // the pipeline's; inside a loop it runs in the loop's phase, before the pipeline.
  for (const CallExpr* c : ast::aggregatesBefore(p)) aggregate(*c, phase, executions);
}

void GraphBuilder::methodCall(const MethodCallExpr& m, int phase, double executions) {
  const Symbol* s = m.container;
  if (!s || !m.methodId) return;
  if (*m.methodId == ast::Method::Push) {
    int where = phase;
    if (where < 0) where = callPhase(s->name + ".push at " + at(m.loc), m.loc);
    if (s->kind == Symbol::Queue && queueOf_.count(s)) {
      Node& q = plan_.nodes[queueOf_[s]];
      // Calibrated: the fraction of the planned pushes that ran (a push under an `if`).
      const Calibration::Measured* c = calibrated(q.id);
      if (c) q.calibrated = *c;
      q.elements += executions * (c ? c->fraction : 1.0);
      q.livePhases.push_back(where);
      if (!loopNodes_.empty()) pushLoop_.emplace(q.id, loopNodes_.back());
    } else if (s->kind == Symbol::Vector) {
      auto key = std::make_pair(s, where);
      auto it = pushNode_.find(key);
      if (it == pushNode_.end()) {
        int id = add(Node::VectorPush, s->name + ".push", m.loc, where, 0, s->type, {}, s);
        it = pushNode_.emplace(key, id).first;
        if (!loopNodes_.empty()) pushLoop_.emplace(id, loopNodes_.back());
      }
      // A vector's pushes are counted on its first push node (codegen's pushCounter): the
      // fraction measured there holds for all of them.
      int first = it->second;
      for (const auto& [k, id] : pushNode_)
        if (k.first == s) first = std::min(first, id);
      const Calibration::Measured* c = calibrated(first);
      if (c) plan_.nodes[it->second].calibrated = *c;
      const double pushes = executions * (c ? c->fraction : 1.0);
      plan_.nodes[it->second].elements += pushes;
      vectorSize_[s].first += pushes;
    }
  } else if (s->kind == Symbol::Queue && queueOf_.count(s)) {
    plan_.nodes[queueOf_[s]].livePhases.push_back(
        phase >= 0 ? phase : callPhase(s->name + "." + m.method + " at " + at(m.loc), m.loc));
  }
}

void GraphBuilder::aggregate(const CallExpr& c, int phase, double executions) {
  bool own = phase < 0;
  const Owner outer = owner_;
  const bool outerPerElement = perElement_;
  owner_ = &c; // an aggregate's pipeline is generated where the call is
  perElement_ = perElement_ || phase >= 0;
  if (auto* p = c.args[0]->as<PipelineArgExpr>()) aggregatesBefore(*p->pipeline, phase, executions);
  if (own) beginPhase(c.callee.str() + " at " + at(c.loc), c.loc);
  int start = own ? base_ : phase;
  Flow in;
  if (auto* p = c.args[0]->as<PipelineArgExpr>()) in = pipeline(*p->pipeline, start, executions);
  else in = named(*c.args[0]->as<NameExpr>()->symbol, start, executions, c.args[0]->loc);
  plan_.aggregateNode[&c] = add(Node::Aggregate, c.callee.str(), c.loc, in.phase, plan_.nodes[in.node].elements,
                                c.args[0]->type, {in.node}, &c);
  owner_ = outer;
  perElement_ = outerPerElement;
  if (own) endPhase();
}

void GraphBuilder::arrayDecl(const ArrayDecl& d, int phase) {
  // Outside loops the array is made in a phase of its own (filling it is work of its
  // own); inside a loop it is made and dropped in the loop's phase.
  const bool own = phase < 0;
  if (own) phase = ownPhase("array " + d.name, d.loc);
  auto n = count(*d.length);
  int id = add(Node::ArrayAlloc, "array " + d.name, d.loc, phase, n.value_or(0), d.symbol->type, {}, &d);
  plan_.declarationNode[&d] = id;
  if (!n) unknown(id, "the length is known only when the program runs: nothing is reserved for it");
  else plan_.nodes[id].note = "held in memory until " + std::string(own ? "its block (or the script) ends" : "the loop's body ends");
  arrays_[&d] = {id, phase, own ? -1 : phase};
}

void GraphBuilder::endScope(const std::vector<StmtPtr>& body) {
  for (const StmtPtr& s : body)
    if (auto* a = s->as<ArrayDecl>(); a && arrays_.count(a) && arrays_[a].last < 0)
      arrays_[a].last = std::max(arrays_[a].first, nextPhase_ - 1);
}

void GraphBuilder::finishScopes() {
  for (auto& [decl, scope] : arrays_) {
    Node& n = plan_.nodes[scope.node];
    const int last = scope.last < 0 ? std::max(scope.first, nextPhase_ - 1) : scope.last; // top level: to the end
    n.livePhases.clear();
    for (int p = scope.first; p <= last; ++p) n.livePhases.push_back(p);
  }
}

void GraphBuilder::vectorIndex(const Symbol& v, SourceLoc loc, int phase, double executions, bool write) {
  // Outside loops, the accesses of one top-level statement share a phase of their own.
  auto key = std::make_pair(&v, phase < 0 ? -1 - statement_ : phase);
  auto it = indexNode_.find(key);
  if (it == indexNode_.end()) {
    if (phase < 0) {
      auto own = indexPhase_.find(statement_);
      if (own == indexPhase_.end()) own = indexPhase_.emplace(statement_, ownPhase("random access at " + at(loc), loc)).first;
      phase = own->second;
    }
    const Owner outer = owner_;
    owner_ = item_; // codegen sizes the cache around the top-level statement
    auto size = vectorSize_[&v];
    int id = add(Node::VectorIndex, v.name + "[i] (block cache)", loc, phase, size.first, v.type, {}, &v);
    plan_.nodes[id].counted = !size.second;
    owner_ = outer;
    it = indexNode_.emplace(key, id).first;
  }
  Node& n = plan_.nodes[it->second];
  auto& [accesses, writes] = n.accessesByLoop[loopNodes_.empty() ? -1 : loopNodes_.back()];
  accesses += executions;
  if (write) writes += executions;
}

int GraphBuilder::ownPhase(const std::string& label, SourceLoc loc) {
  // A top-level call on a container (q.push(x) outside any loop) runs in a phase of its own.
  beginPhase(label, loc);
  int phase = base_;
  endPhase();
  return phase;
}

int GraphBuilder::callPhase(const std::string& call, SourceLoc loc) {
  // Calls on containers one after another in one top-level statement and the same loops
  // (a drain loop's `while !q.empty() { … q.top() … q.pop(); }`) share a phase: nothing
  // between them needs one of its own, and explain and --stats show the loop as one line.
  // Not across statements: a queue is freed after the statement of its last phase.
  if (callPhase_ >= 0 && callPhaseStatement_ == statement_ && nextPhase_ == callPhase_ + 1 &&
      plan_.phases.back().id == callPhase_ && plan_.phases.back().loops == loops_) {
    plan_.phases.back().label += ", " + call;
    return callPhase_;
  }
  callPhase_ = ownPhase(call, loc);
  callPhaseStatement_ = statement_;
  return callPhase_;
}

// ---------------------------------------------------------------------------- pipelines

GraphBuilder::Flow GraphBuilder::named(const Symbol& s, int phase, double multiplier, SourceLoc useLoc) {
  if (s.kind == Symbol::Vector) {
    auto size = vectorSize_[&s];
    int n = add(Node::ScanVector, "scan " + s.name, useLoc, phase, size.first * multiplier, s.type, {}, &s);
    plan_.nodes[n].counted = !size.second;
    return {n, phase};
  }
  auto built = builtStream_.find(&s);
  if (built == builtStream_.end() && writeFirst_.count(&s)) {
    // Written out in a phase of its own before the statement reads it (see
    // streamsToWriteFirst); every reader below reads it back.
    Flow out = pipeline(*s.pipeline, phase, multiplier);
    built = builtStream_.emplace(&s, Built{out, owner_}).first;
    materialized_[&s] = add(Node::Materialize, "materialize " + s.name, s.loc, out.phase,
                            plan_.nodes[out.node].elements, s.type, {out.node}, &s);
  }
  if (built == builtStream_.end()) {
    Flow out = pipeline(*s.pipeline, phase, multiplier);
    builtStream_[&s] = {out, owner_};
    return out;
  }
  const Node& src = plan_.nodes[built->second.flow.node];
  if (built->second.owner == owner_ && !materialized_.count(&s)) {
    // A second reader of the same pipeline: both run together, the stream is branched.
    int b = add(Node::Branch, "branch " + s.name, useLoc, phase, src.elements, s.type, {built->second.flow.node}, &s);
    return {b, std::max(phase, built->second.flow.phase)};
  }
  // A reader that runs later (another statement, another aggregate) of a stream that is
  // a binary input file as it is: the file is read again (it holds the same elements),
  // rather than copied to the temporary disk by the first reader.
  if (!materialized_.count(&s) && readsUnchangedFile(*s.pipeline)) return pipeline(*s.pipeline, phase, multiplier);
  // Any other: the first run writes the stream out as it goes, and every later reader
  // reads it back.
  if (!materialized_.count(&s)) {
    const Owner current = owner_;
    owner_ = built->second.owner;
    materialized_[&s] = add(Node::Materialize, "materialize " + s.name, s.loc, built->second.flow.phase,
                            src.elements, s.type, {built->second.flow.node}, &s);
    owner_ = current;
  }
  const Node& written = plan_.nodes[materialized_[&s]];
  if (written.owner == owner_) phase = std::max(phase, written.phase + 1); // after it is written
  int r = add(Node::Reread, "reread " + s.name, useLoc, phase, written.elements * multiplier, s.type,
              {materialized_[&s]}, &s);
  return {r, phase};
}

bool GraphBuilder::readsUnchangedFile(const Pipeline& p) const {
  // Only a named file (standard input and a path param could be read only once, or be
  // a file the script writes under another name) that the script writes nowhere (the
  // files it writes are known before the walk: makePlan's first pass).
  if (!p.stages.empty() || p.source->kind() != Source::Read) return false;
  const auto& r = *p.source->as<ReadSource>();
  return !r.text && !r.path.isParam() && r.path.literal.text() != "-" && plan_.writtenPathParams.empty() &&
         knownWrites_ && plan_.readsInput(r);
}

GraphBuilder::Flow GraphBuilder::pipeline(const Pipeline& p, int phase, double multiplier, size_t stages) {
  Flow f = source(*p.source, phase, multiplier);
  for (size_t i = 0; i < p.stages.size() && i < stages; ++i) f = stage(*p.stages[i], f);
  return f;
}

bool GraphBuilder::hashJoin(const JoinSource& j, const Node& right, double multiplier, std::string& why) const {
  if (!j.orderFree) {
    if (!j.mergeOnly.empty()) why = "a merge join: " + j.mergeOnly;
    return false;
  }
  // A calibrated plan has the program's nodes: the program chose by its own counts.
  if (options_.programPlan) {
    const auto& theirs = options_.programPlan->nodes;
    return static_cast<size_t>(nextId()) < theirs.size() && theirs[static_cast<size_t>(nextId())].kind == Node::HashJoin;
  }
  if (!right.counted) {
    why = "a merge join: the right input's count is not known (with ~ COUNT on it, a hash join that fits "
          "needs no sort)";
    return false;
  }
  if (right.countedNow) { // as flowc build plans it: the program is built without the file
    why = "a merge join: the right input's count is known only from the file as it is now, and the program "
          "is built without it (with ~ COUNT on it, a hash join that fits needs no sort)";
    return false;
  }
  // The table for one run of the statement, beside what the phase's other nodes need.
  const double elements = multiplier > 0 ? right.elements / multiplier : right.elements;
  const uint64_t need = flow::plan::hash_join_memory_for(static_cast<uint64_t>(std::llround(elements)),
                                                         j.inputs[1]->elementType->size(), plan_.blockBytes);
  const std::string table = "a hash table of the right input's " + formatCount(elements) + " elements";
  if (need > plan_.memoryBytes / 4 * 3) {
    why = "a merge join: " + table + " would take " + formatBytes(static_cast<double>(need)) +
          ", more than 3/4 of the budget";
    return false;
  }
  why = "a hash join: " + table + " takes " + formatBytes(static_cast<double>(need)) +
        " and the reduce after it does not depend on the order of its output, so neither input is sorted";
  return true;
}

GraphBuilder::Flow GraphBuilder::source(const Source& s, int phase, double multiplier) {
  switch (s.kind()) {
  case Source::Generate: {
    auto& g = *s.as<GenerateSource>();
    auto n = count(*g.count);
    int id = add(Node::Generate, "generate", s.loc, phase, n.value_or(0) * multiplier, s.elementType, {}, &g);
    if (!n) unknown(id, "the count of generate is not a constant");
    return {id, phase};
  }
  case Source::Range: {
    auto& r = *s.as<RangeSource>();
    auto a = count(*r.begin), b = count(*r.end);
    double n = a && b ? std::max(0.0, *b - *a) : 0;
    int id = add(Node::Range, "range", s.loc, phase, n * multiplier, s.elementType, {}, &r);
    if (!a || !b) unknown(id, "the bounds of range are not constants");
    return {id, phase};
  }
  case Source::Read:
  case Source::ReadText: {
    auto& r = *s.as<ReadSource>();
    const InputNow now =
        !r.estimate && options_.inputFilesNow && plan_.readsInput(r) ? inputNow(r, *s.elementType) : InputNow{};
    double n = r.estimate                                     ? estimate(*r.estimate)
               : now.known                                    ? static_cast<double>(now.elements)
               : nominalInputs_ && plan_.readsInput(r) ? kNominalInputElements
                                                                   : 0;
    int id = add(r.text ? Node::ReadText : Node::ReadFile,
                 (r.csv ? "read_csv " : r.lines ? "read_lines " : r.text ? "read_text " : "read ") + plan_.pathLabel(r.path),
                 s.loc, phase, n * multiplier, s.elementType, {}, &r);
    plan_.nodes[id].countedNow = now.known;
    if (now.known && r.text) // its lines' bytes as they are, not as planned (as a program does at start)
      plan_.nodes[id].elementBytes = text_line_bytes(now.bytes, now.elements, plan_.nodes[id].elementBytes);
    if (now.known)
      plan_.nodes[id].note = "counted from the file as it is now (" + flow::format_bytes(static_cast<double>(now.bytes)) +
                             (r.text ? ", its lines estimated from its first MiB" : "") +
                             "); the program counts it again when it starts";
    else if (!r.estimate && r.text)
      unknown(id, "no line count: a run plans for the file's size at start, at about " +
                      std::to_string(plan_.nodes[id].elementBytes) + " bytes a line (write " +
                      (r.lines ? "read_lines(…)" : r.csv ? "read_csv(…) as T" : "read_text(…) as T") +
                      " ~ COUNT to plan for a count here)");
    else if (!r.estimate)
      unknown(id, "no element count: write read(…) as T ~ COUNT");
    return {id, phase};
  }
  case Source::Scan: {
    auto& sc = *s.as<ScanSource>();
    return named(*sc.symbol, phase, multiplier, sc.loc);
  }
  case Source::Merge: {
    auto& m = *s.as<MergeSource>();
    auto [inputs, out] = inputsInOnePhase(m.inputs, phase, multiplier);
    double n = 0;
    for (int in : inputs) n += plan_.nodes[in].elements;
    int id = add(Node::Merge, "merge by " + m.order.str(), s.loc, out, n, s.elementType, inputs, &m);
    return {id, out};
  }
  case Source::Join: {
    auto& j = *s.as<JoinSource>();
    // Each input up to the sort sema inserted for the join, if any: a merge join reads
    // its inputs in key order, a hash join as they come, so the sorts are planned only
    // for a merge join. (Inputs in key order already cost a merge join nothing to sort.)
    Flow flows[2];
    const SortStage* sorts[2] = {nullptr, nullptr};
    for (int side = 0; side < 2; ++side) {
      const Pipeline& in = *j.inputs[side];
      if (!in.stages.empty())
        if (auto* so = in.stages.back()->as<SortStage>(); so && !so->insertedFor.empty()) sorts[side] = so;
      flows[side] = pipeline(in, phase, multiplier, in.stages.size() - (sorts[side] ? 1 : 0));
    }
    std::string why;
    const bool hashed = (sorts[0] || sorts[1]) && hashJoin(j, plan_.nodes[flows[1].node], multiplier, why);
    for (int side = 0; side < 2; ++side)
      if (sorts[side] && !hashed) flows[side] = stage(*sorts[side], flows[side]);
    const std::vector<int> inputs = {flows[0].node, flows[1].node};
    const int out = std::max({phase, flows[0].phase, flows[1].phase});
    for (int in : inputs) runInPhase(in, out);
    const Node& a = plan_.nodes[inputs[0]];
    const Node& b = plan_.nodes[inputs[1]];
    // Without `~ N`: one output per element of the larger input (a key joined with at
    // most one partner on the other side, as with a foreign key), and every left element
    // for a left join.
    const double larger = std::max(a.elements, b.elements); // a and b move as nodes are added
    double n = j.estimate ? estimate(*j.estimate) * multiplier : larger;
    int id = add(hashed ? Node::HashJoin : Node::Join,
                 std::string(hashed ? "hash join" : j.left ? "left_join" : "join") + " by " + j.keys[0].resolved->name,
                 s.loc, out, n, s.elementType, inputs, &j);
    plan_.nodes[id].note = why;
    if (!j.estimate)
      plan_.nodes[id].note += (why.empty() ? "" : "; ") + std::string("assumed one output per element of the larger input (add ~ COUNT)");
    calibrateCount(id, larger); // outputs per element of the larger input
    return {id, out};
  }
  case Source::Zip: {
    auto& z = *s.as<ZipSource>();
    auto [inputs, out] = inputsInOnePhase(z.inputs, phase, multiplier);
    int id = add(Node::Zip, "zip", s.loc, out, plan_.nodes[inputs[0]].elements, s.elementType, inputs, &z);
    return {id, out};
  }
  case Source::Concat: {
    auto& c = *s.as<ConcatSource>();
    auto [inputs, out] = inputsInOnePhase(c.inputs, phase, multiplier);
    double n = 0;
    for (int in : inputs) n += plan_.nodes[in].elements;
    int id = add(Node::Concat, "concat", s.loc, out, n, s.elementType, inputs, &c);
    return {id, out};
  }
  case Source::ExprSrc: {
    if (auto* m = s.as<ExprSource>()->expr->as<MethodCallExpr>()) { // q.pop_below(limit)
      const int q = queueOf_.at(m->container);
      // Each item comes out once, in whichever round takes it: the items pushed before
      // it spread over the rounds of the loops around it (not yet those its own loop
      // pushes, which the queue's count adds later).
      double rounds = 1;
      for (const WhileStmt* w : loops_)
        if (w->rounds) rounds *= std::max(1.0, estimate(*w->rounds));
      int id = add(Node::QueueBelow, m->container->name + ".pop_below", s.loc, phase,
                   plan_.nodes[q].elements / rounds * multiplier, s.elementType, {}, m);
      plan_.nodes[id].note = "assumed the items pushed into " + m->container->name + " before it" +
                             (rounds > 1 ? ", spread over the loop's rounds" : "");
      return {id, phase};
    }
    auto* n = s.as<ExprSource>()->expr->as<NameExpr>();
    return named(*n->symbol, phase, multiplier, n->loc);
  }
  }
  return {0, phase};
}

GraphBuilder::Flow GraphBuilder::stage(const Stage& s, Flow in) {
  const Node& input = plan_.nodes[in.node];
  double n = input.elements;
  switch (s.kind()) {
  case Stage::Map:
    return {add(Node::Map, "map " + s.as<MapStage>()->var, s.loc, in.phase, n, s.elementType, {in.node},
                s.as<MapStage>()),
            in.phase};
  case Stage::Filter: {
    auto& f = *s.as<FilterStage>();
    double sel = f.estimate ? estimate(*f.estimate) : 1.0;
    int id = add(Node::Filter, "filter " + f.var, s.loc, in.phase, n * sel, s.elementType, {in.node}, &f);
    if (!f.estimate) plan_.nodes[id].note = "assumed to pass every element (add ~ FRACTION)";
    calibrateCount(id, n);
    return {id, in.phase};
  }
  case Stage::Unique: {
    auto& u = *s.as<UniqueStage>();
    double sel = u.estimate ? estimate(*u.estimate) : 1.0;
    int id = add(Node::Unique, u.keys.empty() ? "unique" : "unique by keys", s.loc, in.phase, n * sel, s.elementType,
                 {in.node}, &u);
    calibrateCount(id, n);
    return {id, in.phase};
  }
  case Stage::Named: {
    auto& named = *s.as<NamedStage>();
    double out = n; // enumerate: every element, with its position
    int id = 0;
    switch (*named.id) {
    case StageId::Window:
      // One array per element from the N-th on.
      out = std::max(0.0, n - static_cast<double>(named.constantArgument) + 1);
      id = add(Node::Window, "window " + std::to_string(named.constantArgument), s.loc, in.phase, out, s.elementType,
               {in.node}, &named);
      break;
    case StageId::Sample: {
      const std::optional<double> fraction = count(*named.argument); // known when the params are
      id = add(Node::Sample, "sample", s.loc, in.phase, n * std::min(1.0, fraction.value_or(1.0)), s.elementType,
               {in.node}, &named);
      if (!fraction) plan_.nodes[id].note = "assumed to keep every element: its fraction is computed at run time";
      calibrateCount(id, n);
      break;
    }
    case StageId::Enumerate:
      id = add(Node::Enumerate, "enumerate", s.loc, in.phase, out, s.elementType, {in.node}, &named);
      break;
    }
    return {id, in.phase};
  }
  case Stage::Take: {
    auto& t = *s.as<TakeStage>();
    auto k = count(*t.count);
    int id = add(Node::Take, "take", s.loc, in.phase, k ? std::min(n, *k) : n, s.elementType, {in.node}, &t);
    return {id, in.phase};
  }
  case Stage::For: {
    auto& f = *s.as<ForStage>();
    // Each emit site runs at most once per element (unless nested in a loop); emits in
    // the for stages of nested pipelines belong to those.
    struct EmitCounter : Visitor {
      int emits = 0;
      bool visit(const Stmt& st) override {
        emits += st.as<EmitStmt>() != nullptr;
        return true;
      }
      bool visit(const Pipeline&) override { return false; }
    } counter;
    for (const StmtPtr& b : f.body) counter.walk(*b);
    const int emits = counter.emits;
    EmitCounter atEnd;
    for (const StmtPtr& b : f.end) atEnd.walk(*b);
    // `~ R`: R emits per element, where the sites say how many there can be, not how
    // often they run (a parser emitting one record per 100 bytes).
    const double perElement = f.estimate ? estimate(*f.estimate) : emits;
    int id = add(Node::ForStage, "for " + f.var, s.loc, in.phase, n * perElement + atEnd.emits, s.elementType,
                 {in.node}, &f);
    calibrateCount(id, n); // its emits per element, measured
    loopNodes_.push_back(id);
    for (const StmtPtr& b : f.body) statements(*b, in.phase, n);
    loopNodes_.pop_back();
    for (const StmtPtr& b : f.end) statements(*b, in.phase, 1.0);
    return {id, in.phase};
  }
  case Stage::Reduce: {
    auto& r = *s.as<ReduceStage>();
    // Without `~ f`, every key is assumed distinct: the most the output can be.
    const double out = n * (r.estimate ? estimate(*r.estimate) : 1.0);
    const std::string name = "reduce by " + r.keyOrder->name;
    const std::string assumed = "assumed every key distinct (add ~ FRACTION: distinct keys / elements)";
    if (r.inputSorted) {
      int id = add(Node::Fold, name + " (streaming)", s.loc, in.phase, out, s.elementType, {in.node}, &r);
      plan_.nodes[id].note = "a streaming fold: the input is already in key order" + (r.estimate ? "" : "; " + assumed);
      if (calibrated(id)) {
        calibrateCount(id, n);
        plan_.nodes[id].note = "a streaming fold: the input is already in key order";
      }
      return {id, in.phase};
    }
    // Calibrated, the output's measured fraction of the input (the merge's count) is also
    // what the hash table and the runs' combining are planned for.
    const Calibration::Measured* c = calibrated(nextId() + 1);
    int runs = add(Node::ReduceRuns, name + " (runs)", s.loc, in.phase, n, s.elementType, {in.node}, &r);
    int merge = add(Node::ReduceMerge, name + " (merge)", s.loc, in.phase + 1, c ? n * c->fraction : out,
                    s.elementType, {runs}, &r);
    plan_.nodes[runs].partner = merge;
    plan_.nodes[merge].partner = runs;
    plan_.nodes[runs].keyed = plan_.nodes[merge].keyed = r.keyOrder->hasRadixKey();
    if (!r.estimate) plan_.nodes[merge].note = assumed;
    calibrateCount(merge, n);
    return {merge, in.phase + 1};
  }
  case Stage::Sort: {
    auto& so = *s.as<SortStage>();
    std::string name = "sort by " + (so.order ? so.order->str() : std::string("asc"));
    int runs = add(Node::SortRuns, name + " (runs)", s.loc, in.phase, n, s.elementType, {in.node}, &so);
    int merge = add(Node::SortMerge, name + " (merge)", s.loc, in.phase + 1, n, s.elementType, {runs}, &so);
    plan_.nodes[runs].partner = merge;
    plan_.nodes[merge].partner = runs;
    plan_.nodes[runs].keyed = plan_.nodes[merge].keyed = so.order && so.order->order && so.order->order->hasRadixKey();
    if (!so.insertedFor.empty())
      plan_.nodes[runs].note = "inserted by the compiler: the " + so.insertedFor + " reads this input in key order";
    return {merge, in.phase + 1};
  }
  }
  return in;
}

template <class Pipelines>
std::pair<std::vector<int>, int> GraphBuilder::inputsInOnePhase(const Pipelines& pipelines, int phase,
                                                                double multiplier) {
  // The inputs of a merge, join, zip or concat: each planned, then all run in the phase
  // of the one ready last (the node reads them side by side, or one after the other).
  std::vector<int> inputs;
  int out = phase;
  for (const PipelinePtr& in : pipelines) {
    Flow f = pipeline(*in, phase, multiplier);
    inputs.push_back(f.node);
    out = std::max(out, f.phase);
  }
  for (int in : inputs) runInPhase(in, out);
  return {inputs, out};
}

void GraphBuilder::runInPhase(int node, int phase) {
  // A node that reads several inputs side by side (merge, join, zip) or one after the
  // other into one stream (concat) runs each input's last stretch in its own phase: the
  // nodes from the input back to where it starts there (a source, a sort's merge, a
  // re-read), with their memory planned in that phase.
  Node& n = plan_.nodes[node];
  n.phase = phase;
  if (n.inputs.empty() || n.traits().startsStretch()) return;
  for (int in : n.inputs) runInPhase(in, phase);
}

GraphBuilder::InputNow GraphBuilder::inputNow(const ReadSource& r, const sema::Type& element) const {
  const std::string path = plan_.pathValue(r.path);
  if (path.empty() || path == "-") return {};
  // As the program will when it starts (program::check_input_files): a regular file's
  // size over its elements' bytes, or a text file's lines estimated from its start.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st;
  InputNow out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const auto bytes = static_cast<uint64_t>(st.st_size);
    if (r.text) out = InputNow{true, plan::estimated_lines(fd, bytes), bytes};
    else if (element.size() > 0 && bytes % element.size() == 0) out = InputNow{true, bytes / element.size(), bytes};
  }
  ::close(fd);
  return out;
}

void GraphBuilder::unknown(int node, const std::string& why) {
  plan_.nodes[node].counted = false;
  plan_.nodes[node].note = why;
}

} // namespace flow::plan
