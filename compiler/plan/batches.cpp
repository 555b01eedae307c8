// Which maps and filters run in batches on the program's threads (flow/stream/
// batched_stages.hpp): a stretch of them, one feeding the next, whose functions keep no
// state and cost enough an element to be worth a batch's copies and the threads'
// wake-ups. A for stage whose body keeps no state either (it reads only its element,
// constants, params, lets and the vars it declares itself, and only emits: a parser, a
// splitter into words) is a stretch of its own. Everything else runs on its phase's one
// thread, as before.
//
// A function may be run on any thread, in any order, when all it reads stays the same
// while its stretch runs: the element, constants, params and `let`s, and `var`s only in a
// phase where no for stage or loop body runs (those could change them between two
// elements). It must not touch a container (a queue, a vector, an array), call a C++
// function (which may keep state), feed a concat (whose inputs run one after the other)
// or run inside a loop body's pipeline (its threads would start once per element of the
// loop). And since a stretch's output comes up to two batches after its input, what comes
// after it runs late against the rest of its phase: where both touch state (a for stage
// or loop body, a stage reading a var or container), the stretch stays on one thread.
// rand() is drawn at positions (docs/language.md), so a stretch's first stage may draw:
// its positions are the elements' numbers in its input.
#include "plan/plan.hpp"

#include "ast/visit.hpp"
#include "sema/symbols.hpp"
#include "sema/types.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace flow::plan {

using namespace flow::ast;

namespace {

/// About what a function costs an element, in additions (about half a nanosecond each):
/// a division or a hash 8, work on strings (formatting, parsing, comparing, a method) 64.
constexpr double kDivision = 8, kHash = 8, kStringWork = 64;
/// A stretch below this runs on one thread. Measured on 2 cores: a stretch of cheap
/// arithmetic (about 20) ran 2× slower in batches than inline, since handing each element
/// into and out of a batch on the calling thread costs more than its work (several
/// nanoseconds); one that formats and parses numbers (about 300) ran 1.6× faster.
constexpr double kWorthABatch = 64;

double cost(const Expr& e);
double costOfChildren(const Expr& e) {
  double sum = 0;
  forEachChild(e, [&](const Child& c) {
    if (c.expr) sum += cost(*c.expr);
  });
  return sum;
}

double cost(const Expr& e) {
  switch (e.kind()) {
  case Expr::StringLit: return e.as<StringLitExpr>()->literal.isInterpolated() ? kStringWork + costOfChildren(e) : 0;
  case Expr::Binary: {
    const auto& b = *e.as<BinaryExpr>();
    const double own = b.lhs->type && b.lhs->type->isStr()                  ? kStringWork
                       : b.op == BinaryOp::Div || b.op == BinaryOp::Rem ? kDivision
                                                                          : 1;
    return own + costOfChildren(e);
  }
  case Expr::Unary:
  case Expr::Cast:
  case Expr::Index: return 1 + costOfChildren(e);
  case Expr::IfElse: {
    const auto& i = *e.as<IfExpr>();
    return 1 + cost(*i.cond) + std::max(cost(*i.then), cost(*i.otherwise));
  }
  case Expr::MethodCall: return (e.as<MethodCallExpr>()->strMethod ? kStringWork : 1) + costOfChildren(e);
  case Expr::Call: {
    const auto& c = *e.as<CallExpr>();
    if (c.inlined) return costOfChildren(e); // the expanded body and the arguments
    if (!c.builtin) return 1 + costOfChildren(e);
    switch (*c.builtin) {
    case Builtin::Hash: return kHash + costOfChildren(e);
    case Builtin::Min:
    case Builtin::Max:
    case Builtin::Abs:
    case Builtin::Bor:
    case Builtin::Rand: return 1 + costOfChildren(e);
    default: return kStringWork + costOfChildren(e); // str(x) and the parsers
    }
  }
  default: return costOfChildren(e);
  }
}

/// Why a function must run on its phase's one thread, or "" when any thread may run it.
/// `locals`: the statements of a for stage's body, whose vars it may read.
std::string whyOneThread(const Expr& fn, bool stateInPhase, const std::set<const Stmt*>& locals = {}) {
  struct Finder : Visitor {
    bool stateInPhase;
    const std::set<const Stmt*>* locals;
    std::string why;
    bool visit(const Expr& x) override {
      if (auto* n = x.as<NameExpr>(); n && n->symbol) {
        const sema::Symbol& s = *n->symbol;
        if (s.kind == sema::Symbol::Var && stateInPhase && !locals->count(s.decl))
          why = "it reads var " + s.name + ", which a for stage or loop body of its phase may change";
        if (s.kind == sema::Symbol::Array || s.kind == sema::Symbol::Vector || s.kind == sema::Symbol::Queue)
          why = "it reads " + s.name + ", a container";
      }
      if (auto* m = x.as<MethodCallExpr>(); m && m->methodId) why = "it calls ." + m->method + "() of a container";
      if (auto* c = x.as<CallExpr>(); c && c->symbol && c->symbol->kind == sema::Symbol::CppFunction)
        why = "it calls the C++ function " + c->callee.str() + ", which may keep state";
      if (auto* c = x.as<CallExpr>(); c && c->aggregate) why = "it reads a whole stream";
      return why.empty();
    }
  } finder;
  finder.stateInPhase = stateInPhase;
  finder.locals = &locals;
  finder.walk(fn);
  return finder.why;
}

/// Why a for stage must run on its phase's one thread, or "" when each element's
/// statements depend on that element only, so that any thread may run them in any
/// order: no end block, no print or write, an assignment only to a var it declares, a
/// loop only over the pieces of a str (no stream, container or range, which are plan
/// nodes of their own), no rand() (its draws are numbered per element of a map), and
/// expressions that whyOneThread allows.
std::string whyForStageOnOneThread(const ForStage& f) {
  if (f.hasEnd) return "it has an end block";
  std::set<const Stmt*> locals;
  struct Collect : Visitor {
    std::set<const Stmt*>* locals;
    bool visit(const Stmt& st) override {
      locals->insert(&st);
      return true;
    }
  } collect;
  collect.locals = &locals;
  for (const StmtPtr& st : f.body) collect.walk(*st);
  struct Finder : Visitor {
    const std::set<const Stmt*>* locals;
    std::string why;
    bool visit(const Stmt& st) override {
      switch (st.kind()) {
      case Stmt::Print: why = "it prints"; break;
      case Stmt::Write:
      case Stmt::WriteText: why = "it writes a file"; break;
      case Stmt::ForIn:
        if (!st.as<ForInStmt>()->overPieces) why = "it loops over a stream, a container or a range";
        break;
      case Stmt::Assign: {
        const Expr* target = st.as<AssignStmt>()->target.get();
        while (target && target->kind() != Expr::Name) { // a field or an element of a var
          if (auto* fa = target->as<FieldExpr>()) target = fa->object.get();
          else if (auto* ix = target->as<IndexExpr>()) target = ix->object.get();
          else target = nullptr;
        }
        const sema::Symbol* s = target ? target->as<NameExpr>()->symbol : nullptr;
        if (!s || s->kind != sema::Symbol::Var || !locals->count(s->decl))
          why = "it assigns to a var declared outside it";
        break;
      }
      default: break;
      }
      return why.empty();
    }
    bool visit(const Expr& x) override {
      why = drawsRand(x) ? "it draws rand()" : whyOneThread(x, true, *locals);
      return false; // whyOneThread walked it
    }
  } finder;
  finder.locals = &locals;
  for (const StmtPtr& st : f.body)
    if (finder.why.empty()) finder.walk(*st);
  return finder.why;
}
/// What a for stage's body costs an element: its expressions', each once.
double forStageCost(const ForStage& f) {
  struct Sum : Visitor {
    double total = 0;
    bool visit(const Expr& x) override {
      total += cost(x);
      return false;
    }
  } sum;
  for (const StmtPtr& st : f.body) sum.walk(*st);
  return sum.total;
}
/// Whether the node reads or changes what a for stage or loop body of its phase may
/// change: a for stage whose body keeps state (`forStageWhy`: whyForStageOnOneThread), or a
/// function that reads a var, a container or calls C++.
bool touchesState(const Node& n, const std::string& forStageWhy) {
  if (n.kind == Node::ForStage) return !forStageWhy.empty();
  if (n.kind == Node::Map) return !whyOneThread(*n.get<MapStage>()->body, true).empty();
  if (n.kind == Node::Filter) return !whyOneThread(*n.get<FilterStage>()->cond, true).empty();
  if (n.kind == Node::Generate) return !whyOneThread(*n.get<GenerateSource>()->body, true).empty();
  return false;
}

/// Whether a batched stretch after a pop_below could show: it takes items out of the queue
/// up to two batches ahead of what comes after the stretch, so a read of the queue in the
/// phase other than a push (its size, emptiness) would see fewer items than on one thread,
/// and a `break` or a `take` that stops early would leave fewer in it. Pushes do not see
/// it — they must come after the limit, where the pop_below never takes from.
bool queueReadInPhase(const Plan& plan, const Node& below) {
  struct Finder : Visitor {
    const sema::Symbol* queue;
    bool found = false;
    bool visit(const Expr& x) override {
      if (auto* m = x.as<MethodCallExpr>(); m && m->container == queue && m->methodId != ast::Method::Push &&
                                            m->methodId != ast::Method::PopBelow)
        found = true;
      return !found;
    }
    bool visit(const Stmt& s) override {
      if (s.kind() == Stmt::Break) found = true;
      return !found;
    }
  } finder;
  finder.queue = below.get<MethodCallExpr>()->container;
  for (const Node& n : plan.nodes) {
    if (n.phase != below.phase) continue;
    if (n.kind == Node::Take) return true;
    if (n.kind == Node::Loop) finder.walk(*n.get<ForInStmt>());
    if (n.kind == Node::ForStage) finder.walk(*n.get<ForStage>());
    if (n.kind == Node::Map) finder.walk(*n.get<MapStage>()->body);
    if (n.kind == Node::Filter) finder.walk(*n.get<FilterStage>()->cond);
  }
  return finder.found;
}

const Expr& functionOf(const Node& n) {
  return n.kind == Node::Map ? *n.get<MapStage>()->body : *n.get<FilterStage>()->cond;
}
double stageCost(const Node& n) { return n.kind == Node::ForStage ? forStageCost(*n.get<ForStage>()) : cost(functionOf(n)); }
const sema::Type* inputType(const Node& n) {
  if (n.kind == Node::ForStage) return n.get<ForStage>()->varSymbol->type;
  return n.kind == Node::Map ? n.get<MapStage>()->varSymbol->type : n.get<FilterStage>()->varSymbol->type;
}
const sema::Type* outputType(const Node& n) {
  if (n.kind == Node::ForStage) return n.get<ForStage>()->elementType;
  return n.kind == Node::Map ? n.get<MapStage>()->elementType : n.get<FilterStage>()->varSymbol->type;
}
/// The room a batch gives each input of a for stage for what it emits: what the plan
/// expects (`~ R`, --calibrate's count, else one per emit site), at least 4 (a line split
/// into words emits several from one site), at most 64; the batches adapt to what is
/// emitted (batched_stages.hpp).
uint64_t outputsPerInput(const Plan& plan, const Node& n) {
  if (n.kind != Node::ForStage) return 1;
  const double in = plan.nodes[static_cast<size_t>(n.inputs[0])].elements;
  const double perInput = in > 0 ? std::ceil(n.elements / in) : 1;
  return static_cast<uint64_t>(std::clamp(perInput, 4.0, 64.0));
}

void addNote(Node& n, const std::string& note) { n.note += (n.note.empty() ? "" : "; ") + note; }

/// Whether a reduce's combine gives the same bits however its inputs are grouped —
/// combine(combine(x, y), z) == combine(x, combine(y, z)) — so that a chunk's outputs may be
/// combined before they reach it: it is `a` or `b`, or a record each of whose fields is
/// a's or b's, or that field of both joined by integer `+`, `*`, `&`, `^`, `min` or `max`
/// (integers wrap: associative) or bool `&&` or `||`. Not floats, whose sums round
/// differently when grouped otherwise. (A key field is a's whatever the function says.)
bool combinesAssociatively(const ReduceStage& r) {
  if (r.fn.params.size() != 2) return false;
  const sema::Symbol* a = r.fn.params[0].symbol;
  const sema::Symbol* b = r.fn.params[1].symbol;
  auto side = [&](const Expr* e) -> const sema::Symbol* {
    auto* n = e ? e->as<NameExpr>() : nullptr;
    return n && (n->symbol == a || n->symbol == b) ? n->symbol : nullptr;
  };
  // `x.field` of a or b: which of them, else null
  auto sideOfField = [&](const Expr& e, const std::string& field) -> const sema::Symbol* {
    auto* f = e.as<FieldExpr>();
    return f && f->field == field ? side(f->object.get()) : nullptr;
  };
  auto fieldAssociative = [&](const std::string& field, const Expr& e) {
    if (sideOfField(e, field)) return true;
    const Expr *lhs = nullptr, *rhs = nullptr;
    if (auto* bin = e.as<BinaryExpr>()) {
      const bool integer = bin->type && bin->type->isInteger(), boolean = bin->type && bin->type->kind == sema::Type::Bool;
      const BinaryOp op = bin->op;
      if ((integer && (op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::BitAnd || op == BinaryOp::BitXor)) ||
          (boolean && (op == BinaryOp::And || op == BinaryOp::Or)))
        lhs = bin->lhs.get(), rhs = bin->rhs.get();
    } else if (auto* call = e.as<CallExpr>(); call && call->builtin && !call->aggregate && call->args.size() == 2 &&
                                              call->type && call->type->isInteger() &&
                                              (*call->builtin == Builtin::Min || *call->builtin == Builtin::Max)) {
      lhs = call->args[0].get(), rhs = call->args[1].get();
    }
    if (!lhs || !rhs) return false;
    const sema::Symbol *l = sideOfField(*lhs, field), *rr = sideOfField(*rhs, field);
    return l && rr && l != rr;
  };
  const Expr& body = *r.fn.body;
  if (side(&body)) return true;
  auto* init = body.as<RecordInitExpr>();
  if (!init) return false;
  for (const FieldInit& f : init->fields)
    if (!f.value || !fieldAssociative(f.field, *f.value)) return false;
  return true;
}

} // namespace

void batchStages(Plan& plan) {
  std::vector<std::vector<int>> consumers(plan.nodes.size());
  for (const Node& n : plan.nodes)
    for (int in : n.inputs) consumers[static_cast<size_t>(in)].push_back(n.id);
  // Pulled by a merge, join or zip (directly or through stages it pulls): such a stage is
  // the runtime's pull node, which gives one element at a time.
  std::vector<bool> pulled(plan.nodes.size(), false);
  for (auto n = plan.nodes.rbegin(); n != plan.nodes.rend(); ++n)
    for (int c : consumers[static_cast<size_t>(n->id)]) {
      const NodeTraits& t = plan.nodes[static_cast<size_t>(c)].traits();
      if (t.pullsInputs() || (t.passesPull() && pulled[static_cast<size_t>(c)])) pulled[static_cast<size_t>(n->id)] = true;
    }
  // Feeding a concat (through what comes after it, in its phase): the concat runs its
  // inputs one after the other, and a stretch's last batches come out only when its
  // segment ends, after the next input's elements.
  std::vector<bool> feedsConcat(plan.nodes.size(), false);
  for (auto n = plan.nodes.rbegin(); n != plan.nodes.rend(); ++n)
    for (int c : consumers[static_cast<size_t>(n->id)]) {
      const Node& consumer = plan.nodes[static_cast<size_t>(c)];
      if (consumer.phase == n->phase &&
          (consumer.traits().pipeline == PipelineRole::one_after || feedsConcat[static_cast<size_t>(c)]))
        feedsConcat[static_cast<size_t>(n->id)] = true;
    }
  std::vector<std::string> forStageWhy(plan.nodes.size()); // whyForStageOnOneThread, walked once
  for (const Node& n : plan.nodes)
    if (n.kind == Node::ForStage) forStageWhy[static_cast<size_t>(n.id)] = whyForStageOnOneThread(*n.get<ForStage>());
  std::set<int> phasesWithState; // phases where a for stage keeping state or a loop body runs
  for (const Node& n : plan.nodes)
    if ((n.kind == Node::ForStage && !forStageWhy[static_cast<size_t>(n.id)].empty()) || n.kind == Node::Loop)
      phasesWithState.insert(n.phase);
  // A batched stretch's output comes up to two batches after its input: what comes after
  // it runs late against everything else in its phase. So where both touch state (a for
  // stage or a loop body, which may change a var or print, or a function reading a var
  // or a container), the stretch stays on one thread.
  std::vector<bool> touches(plan.nodes.size()); // walked once, asked for every stretch
  for (const Node& n : plan.nodes)
    touches[static_cast<size_t>(n.id)] =
        n.kind == Node::Loop || touchesState(n, forStageWhy[static_cast<size_t>(n.id)]) || (n.kind == Node::QueueBelow && queueReadInPhase(plan, n));
  auto delayWouldShow = [&](const std::vector<int>& stretch) {
    const int phase = plan.nodes[static_cast<size_t>(stretch.front())].phase;
    if (!phasesWithState.count(phase)) return false;
    std::set<int> after, inStretch(stretch.begin(), stretch.end());
    std::vector<int> todo{stretch.back()};
    while (!todo.empty()) {
      const int id = todo.back();
      todo.pop_back();
      for (int c : consumers[static_cast<size_t>(id)])
        if (plan.nodes[static_cast<size_t>(c)].phase == phase && after.insert(c).second) todo.push_back(c);
    }
    bool stateAfter = false, stateElsewhere = false;
    for (const Node& m : plan.nodes) {
      if (m.phase != phase || inStretch.count(m.id) || !touches[static_cast<size_t>(m.id)]) continue;
      (after.count(m.id) ? stateAfter : stateElsewhere) = true;
    }
    return stateAfter && stateElsewhere;
  };

  std::vector<int> stretch; // the stretch being formed: node ids, one feeding the next
  auto close = [&] {
    double total = 0;
    for (int id : stretch) total += stageCost(plan.nodes[static_cast<size_t>(id)]);
    if (!stretch.empty() && total >= kWorthABatch && delayWouldShow(stretch)) {
      addNote(plan.nodes[static_cast<size_t>(stretch.front())],
              "on one thread: in batches, what comes after it would run late against a for stage, a loop body or a "
              "stage reading a var elsewhere in its phase (or a pop_below whose queue its phase reads or leaves early)");
    } else if (!stretch.empty() && total >= kWorthABatch) {
      Node& first = plan.nodes[static_cast<size_t>(stretch.front())];
      const Node& last = plan.nodes[static_cast<size_t>(stretch.back())];
      first.batchOutputs = outputsPerInput(plan, first);
      first.batchElementBytes = inputType(first)->size() + first.batchOutputs * outputType(last)->size();
      for (int id : stretch) {
        plan.nodes[static_cast<size_t>(id)].batchFirst = first.id;
        plan.nodes[static_cast<size_t>(id)].batchLast = last.id;
      }
    }
    stretch.clear();
  };
  for (Node& n : plan.nodes) {
    if (n.kind == Node::ForStage) { // a stretch of its own
      close();
      std::string why = forStageWhy[static_cast<size_t>(n.id)];
      if (why.empty() && n.perElement) why = "its pipeline runs once per element of a loop around it";
      if (why.empty() && pulled[static_cast<size_t>(n.id)]) why = "a merge, join or zip takes its elements one at a time";
      if (why.empty() && feedsConcat[static_cast<size_t>(n.id)]) why = "a concat takes its inputs one after the other";
      if (why.empty()) {
        stretch.push_back(n.id);
        close();
      } else if (stageCost(n) >= kWorthABatch) {
        addNote(n, "on one thread: " + why);
      }
      continue;
    }
    if (n.kind != Node::Map && n.kind != Node::Filter) continue;
    const Expr& fn = functionOf(n);
    std::string why = whyOneThread(fn, phasesWithState.count(n.phase) > 0);
    if (why.empty() && n.perElement) why = "its pipeline runs once per element of a loop around it";
    if (why.empty() && pulled[static_cast<size_t>(n.id)]) why = "a merge, join or zip takes its elements one at a time";
    if (why.empty() && feedsConcat[static_cast<size_t>(n.id)]) why = "a concat takes its inputs one after the other";
    const bool draws = drawsRand(fn);
    // It continues the stretch of its input when it is that input's only consumer.
    const bool continues = !stretch.empty() && n.inputs.size() == 1 && stretch.back() == n.inputs[0] &&
                           consumers[static_cast<size_t>(n.inputs[0])].size() == 1 && !draws;
    if (!continues) close();
    if (!why.empty()) {
      close();
      if (cost(fn) >= kWorthABatch) addNote(n, "on one thread: " + why);
      continue;
    }
    stretch.push_back(n.id);
  }
  close();
  // (a reduce spread over the ranks fills its own table: flow::ranks::spread_reduce)
  for (Node& n : plan.nodes)
    if (n.kind == Node::ReduceRuns && !n.spread &&
        plan.nodes[static_cast<size_t>(n.inputs[0])].batchLast == n.inputs[0])
      n.insertsOnCaller = true;
}

void foldBatchesIntoReduces(Plan& plan) {
  std::vector<int> consumers(plan.nodes.size(), 0);
  for (const Node& n : plan.nodes)
    for (int in : n.inputs) ++consumers[static_cast<size_t>(in)];
  for (const Node& n : plan.nodes) {
    if (n.kind != Node::ReduceRuns || !n.insertsOnCaller || !n.hashed) continue;
    // the reduce alone sees what leaves the stretch
    if (consumers[static_cast<size_t>(n.inputs[0])] != 1 || !combinesAssociatively(*n.get<ReduceStage>())) continue;
    Node& first = plan.nodes[static_cast<size_t>(plan.nodes[static_cast<size_t>(n.inputs[0])].batchFirst)];
    first.batchFoldsInto = n.id;
    addNote(first, "each chunk's outputs combined by the key of " + n.name +
                       " on the thread that made them (its combine is associative)");
  }
}

} // namespace flow::plan
