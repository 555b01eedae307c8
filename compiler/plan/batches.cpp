// Which maps and filters run in batches on the program's threads (flow/stream/
// batched_stages.hpp): a stretch of them, one feeding the next, whose functions keep no
// state and cost enough an element to be worth a batch's copies and the threads'
// wake-ups. Everything else runs on its phase's one thread, as before.
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
std::string whyOneThread(const Expr& fn, bool stateInPhase) {
  struct Finder : Visitor {
    bool stateInPhase;
    std::string why;
    bool visit(const Expr& x) override {
      if (auto* n = x.as<NameExpr>(); n && n->symbol) {
        const sema::Symbol& s = *n->symbol;
        if (s.kind == sema::Symbol::Var && stateInPhase)
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
  finder.walk(fn);
  return finder.why;
}

/// Whether the node reads or changes what a for stage or loop body of its phase may
/// change: a for stage (its body), or a function that reads a var, a container or calls C++.
bool touchesState(const Node& n) {
  if (n.kind == Node::ForStage) return true;
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
const sema::Type* inputType(const Node& n) {
  return n.kind == Node::Map ? n.get<MapStage>()->varSymbol->type : n.get<FilterStage>()->varSymbol->type;
}
const sema::Type* outputType(const Node& n) {
  return n.kind == Node::Map ? n.get<MapStage>()->elementType : n.get<FilterStage>()->varSymbol->type;
}

void addNote(Node& n, const std::string& note) { n.note += (n.note.empty() ? "" : "; ") + note; }

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
  std::set<int> phasesWithState; // phases where a for stage or a loop body runs
  for (const Node& n : plan.nodes)
    if (n.kind == Node::ForStage || n.kind == Node::Loop) phasesWithState.insert(n.phase);
  // A batched stretch's output comes up to two batches after its input: what comes after
  // it runs late against everything else in its phase. So where both touch state (a for
  // stage or a loop body, which may change a var or print, or a function reading a var
  // or a container), the stretch stays on one thread.
  std::vector<bool> touches(plan.nodes.size()); // walked once, asked for every stretch
  for (const Node& n : plan.nodes)
    touches[static_cast<size_t>(n.id)] =
        n.kind == Node::Loop || touchesState(n) || (n.kind == Node::QueueBelow && queueReadInPhase(plan, n));
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
    for (int id : stretch) total += cost(functionOf(plan.nodes[static_cast<size_t>(id)]));
    if (!stretch.empty() && total >= kWorthABatch && delayWouldShow(stretch)) {
      addNote(plan.nodes[static_cast<size_t>(stretch.front())],
              "on one thread: in batches, what comes after it would run late against a for stage, a loop body or a "
              "stage reading a var elsewhere in its phase (or a pop_below whose queue its phase reads or leaves early)");
    } else if (!stretch.empty() && total >= kWorthABatch) {
      Node& first = plan.nodes[static_cast<size_t>(stretch.front())];
      const Node& last = plan.nodes[static_cast<size_t>(stretch.back())];
      first.batchElementBytes = inputType(first)->size() + outputType(last)->size();
      for (int id : stretch) {
        plan.nodes[static_cast<size_t>(id)].batchFirst = first.id;
        plan.nodes[static_cast<size_t>(id)].batchLast = last.id;
      }
    }
    stretch.clear();
  };
  for (Node& n : plan.nodes) {
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
}

} // namespace flow::plan
