// Which streams an MPI program spreads over its ranks (Node::spread; flow/ranks.hpp is
// the runtime's side). Every rank runs the whole program and computes every scalar, so
// a node that is not spread is simply computed whole on every rank: always correct.
// A node is spread where that gives the same elements, in rank order, as one process:
//   - range, and generate whose function depends on its index alone (and its draws of
//     rand(), a function of the index: flow/program/rand.hpp): each rank takes a
//     contiguous share of the indexes; a read of a binary file: a share of its elements;
//     read_text and read_lines: the lines that start in a share of the file's bytes;
//     read_csv: the records that start there (flow/script/csv_files.hpp: csv_share finds
//     them also where quoted fields hold line breaks); standard input: the first rank's
//     part is all of it (mpirun gives it to the first rank only);
//   - map and filter whose function depends on its element alone (no rand(), whose draws
//     depend on the element's number in the stage's input, which a rank cannot know; no
//     C++ function, queue or vector method; the script functions it calls are expanded
//     in place and looked into);
//   - a sort: a sample sort, each rank sorting one key range (flow/ranks/sample_sort.hpp)
//     — when its order decides between any two different elements;
//   - a reduce that sorts (not one of input already in key order): the same sample sort,
//     each rank folding the equal keys of its range — unless its elements may hold a
//     float, whose folds depend on their order; one whose keys fit a hash table folds
//     each rank's part in a table first (flow/ranks/spread_reduce.hpp);
//   - unique of whole elements right after a spread sort (equal elements are on one rank);
//   - a hash join (planned only where nothing after it depends on the order of its
//     output): each rank joins its part of the left input with the whole right input,
//     which every rank reads or computes whole;
//   - a branch to several consumers;
//   - a stream stored for the statements that read it again (each rank stores its part)
//     and those reads;
// and it ends where its consumer combines the parts: count and integer sum (the ranks'
// parts added), a binary write (the parts gathered in order, flow/ranks/spread_writer.hpp).
// Any other consumer needs the whole stream, which makes its input whole, and that
// input's input, back to the source: the marks are taken back until none changes.
#include <algorithm>
#include <cmath>

#include "ast/visit.hpp"
#include "flow/plan/memory_plan.hpp"
#include "plan/plan.hpp"

namespace flow::plan {

namespace {

using namespace flow::ast;

/// Whether `e`'s value depends only on the element variables and constants it names: no
/// rand() (unless `position` — the element's index — decides its draws too: a
/// generate's, flow/program/rand.hpp), no aggregate, no call of an imported function or
/// of a script function that is not expanded in place (whose expanded body is walked like
/// the rest), no method of a queue or vector (a str's methods are functions of the str).
bool dependsOnElementOnly(const Expr& e, bool position = false) {
  struct Finder : Visitor {
    bool position = false;
    bool impure = false;
    bool visit(const Expr& x) override {
      if (auto* c = x.as<CallExpr>())
        impure = impure || c->aggregate || (c->builtin ? *c->builtin == Builtin::Rand && !position : !c->inlined);
      if (auto* m = x.as<MethodCallExpr>()) impure = impure || !m->strMethod; // a queue's or vector's
      return !impure;
    }
  } finder;
  finder.position = position;
  finder.walk(e);
  return !finder.impure;
}

/// Whether a value of the type may hold a floating-point number (an imported C++ record
/// may hold anything): a fold of such values depends on the order it sees them in, which
/// the ranks change.
bool mayHoldFloat(const sema::Type* t) {
  if (t->isFloat()) return true;
  if (t->kind == sema::Type::Array) return mayHoldFloat(t->element);
  if (t->kind == sema::Type::Record) {
    if (t->record->imported) return true;
    for (const sema::FieldInfo& f : t->record->fields)
      if (mayHoldFloat(f.type)) return true;
  }
  return false;
}

/// Whether equal values of the type are equal bytes (no float, whose -0 and +0 compare
/// equal; no imported record).
bool equalMeansSameBytes(const sema::Type* t) {
  if (t->kind == sema::Type::Array) return equalMeansSameBytes(t->element);
  if (t->kind == sema::Type::Record) {
    if (t->record->imported) return false;
    for (const sema::FieldInfo& f : t->record->fields)
      if (!equalMeansSameBytes(f.type)) return false;
    return true;
  }
  return t->isInteger() || t->kind == sema::Type::Bool || t->isStr();
}

/// Whether the order puts any two different elements in one order: then a sort's output
/// is the same bytes however the elements are shared out. Elements the order ties come
/// out of one process's sort in an order that depends on its runs (docs/language.md:
/// the sort is not stable), which several ranks' runs would not reproduce.
bool decidesEveryPair(const sema::OrderInfo& o) {
  if (o.kind == sema::OrderInfo::Asc || o.kind == sema::OrderInfo::Desc) return equalMeansSameBytes(o.type);
  if (o.kind != sema::OrderInfo::Keys || o.type->kind != sema::Type::Record || o.type->record->imported) return false;
  for (const sema::FieldInfo& f : o.type->record->fields) {
    bool keyed = false;
    for (const sema::OrderKeyInfo& k : o.keys)
      keyed = keyed || (k.path.size() == 1 && k.path[0].field == f.name && equalMeansSameBytes(f.type));
    if (!keyed) return false;
  }
  return true;
}

/// Whether no two elements that `n` puts out agree on all of `keys`: a reduce's output
/// (one element per key), through filters, where the keys include the reduce's. A sort
/// of it by those keys then ties no two elements, whatever its order says of the rest.
bool oneElementPerKey(const Plan& plan, const Node& n, const std::vector<sema::OrderKeyInfo>& keys) {
  const Node* at = &n;
  while (at->kind == Node::Filter) at = &plan.nodes[at->inputs[0]];
  if (at->kind != Node::ReduceMerge && at->kind != Node::Fold) return false;
  const auto samePath = [](const sema::OrderKeyInfo& a, const sema::OrderKeyInfo& b) {
    if (a.path.size() != b.path.size()) return false;
    for (size_t i = 0; i < a.path.size(); ++i)
      if (a.path[i].field != b.path[i].field || a.path[i].index != b.path[i].index) return false;
    return true;
  };
  for (const sema::OrderKeyInfo& reduced : at->get<ReduceStage>()->keyOrder->keys) {
    bool sorted = false;
    for (const sema::OrderKeyInfo& k : keys) sorted = sorted || (samePath(k, reduced) && equalMeansSameBytes(k.type));
    if (!sorted) return false;
  }
  return true;
}

/// Whether a sort's output is the same bytes however its elements are shared out.
bool sortDecides(const Plan& plan, const Node& sort) {
  const sema::OrderInfo& order = *sort.get<SortStage>()->order->order;
  const Node& runs = sort.kind == Node::SortRuns ? sort : plan.nodes[sort.partner];
  return decidesEveryPair(order) ||
         (order.kind == sema::OrderInfo::Keys && oneElementPerKey(plan, plan.nodes[runs.inputs[0]], order.keys));
}

/// Whether the node could be spread, its inputs being spread.
bool canSpread(const Plan& plan, const Node& n) {
  switch (n.kind) {
  case Node::Range:
  case Node::ReadFile:
  case Node::Branch:
  case Node::Materialize:
  case Node::Reread:
  case Node::WriteFile: return true;
  case Node::SortRuns:
  case Node::SortMerge: return sortDecides(plan, n);
  case Node::ReadText: return true;
  case Node::Generate: return dependsOnElementOnly(*n.get<GenerateSource>()->body, /*position*/ true);
  case Node::Map: return dependsOnElementOnly(*n.get<MapStage>()->body);
  case Node::Filter: return dependsOnElementOnly(*n.get<FilterStage>()->cond);
  case Node::ReduceRuns:
  case Node::ReduceMerge: // its function folds the elements in another order at each rank
    return !mayHoldFloat(n.get<ReduceStage>()->elementType) && !drawsRand(*n.get<ReduceStage>()->fn.body);
  case Node::HashJoin: return true; // its left input spread, its right one whole (buildSide)
  case Node::Unique:
    return n.get<UniqueStage>()->keys.empty() && n.inputs.size() == 1 &&
           plan.nodes[n.inputs[0]].kind == Node::SortMerge;
  case Node::Aggregate: {
    const CallExpr& call = *n.get<CallExpr>();
    return *call.builtin == Builtin::Count || (*call.builtin == Builtin::Sum && call.type->isInteger());
  }
  default: return false;
  }
}

/// Why a node that cannot be spread cannot (explain --ranks names it).
std::string whyWhole(const Node& n) {
  switch (n.kind) {
  case Node::ForStage: return "a for stage: its state follows the elements in order";
  case Node::Generate: return "its function calls C++ or a queue's or vector's method";
  case Node::Map:
  case Node::Filter:
    return "its function draws rand() (by the element's number, which a rank cannot know) or calls C++ or a "
           "queue's or vector's method";
  case Node::SortRuns:
  case Node::SortMerge:
    return "its order ties different elements (a field that is no key, or a float; not a reduce's output by its keys)";
  case Node::ReduceRuns:
  case Node::ReduceMerge:
    return "its elements may hold a float, or its function draws rand(): its folds depend on their order";
  case Node::Join: return "a merge join";
  case Node::Aggregate: return "min, max and float sums are computed whole";
  case Node::Unique: return "unique of keys, or not right after a spread sort";
  default: return "this kind of node is computed whole (docs/distributed.md)";
  }
}

/// Whether the node combines its spread input into a result every rank has (or writes).
bool combines(const Node& n) { return n.kind == Node::Aggregate || n.kind == Node::WriteFile; }

/// The input of a hash join that fills its table: every rank needs all of it. A hash join
/// is only planned where nothing after it depends on the order of its output (a reduce
/// of no floats reads it through pure maps and filters: sema's orderFree), so each rank
/// joins its part of the left input with the whole right one.
bool buildSide(const Plan& plan, int input, int consumer) {
  const Node& c = plan.nodes[consumer];
  return c.kind == Node::HashJoin && c.inputs.size() == 2 && c.inputs[1] == input;
}

} // namespace

void spreadOverRanks(Plan& plan, unsigned ranks) {
  plan.ranks = ranks;
  // Besides a node's inputs: a sort's merge takes its runs; a stored stream is read by
  // every node that reads its store.
  std::vector<std::vector<int>> inputs(plan.nodes.size()), consumers(plan.nodes.size());
  for (const Node& n : plan.nodes) {
    inputs[n.id] = n.inputs;
    if (n.kind == Node::SortMerge || n.kind == Node::ReduceMerge) inputs[n.id].push_back(n.partner);
    if (const sema::Symbol* store = n.storeRead())
      for (const Node& writer : plan.nodes)
        if (writer.storeWritten() == store) inputs[n.id].push_back(writer.id);
  }
  for (const Node& n : plan.nodes)
    for (int in : inputs[n.id]) consumers[in].push_back(n.id);
  for (Node& n : plan.nodes) {
    n.spread = canSpread(plan, n);
    if (!n.spread) {
      n.wholeCause = n.id;
      n.whyWhole = whyWhole(n);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Node& n : plan.nodes) {
      if (!n.spread) continue;
      int cause = -1;
      for (int in : inputs[n.id])
        if (!plan.nodes[in].spread && !buildSide(plan, in, n.id)) cause = plan.nodes[in].wholeCause;
      if (!combines(n))
        for (int c : consumers[n.id]) {
          if (!plan.nodes[c].spread) cause = plan.nodes[c].wholeCause;
          if (buildSide(plan, n.id, c)) cause = c; // the hash join needs all of its right input
        }
      if (cause >= 0) {
        n.spread = false;
        n.wholeCause = cause;
        changed = true;
      }
    }
  }
  for (const Node& n : plan.nodes)
    if (n.wholeCause >= 0 && plan.nodes[n.wholeCause].kind == Node::HashJoin)
      plan.nodes[n.wholeCause].whyWhole = "a hash join: every rank needs all of its right input";
}

void priceNetwork(Plan& plan) {
  const unsigned ranks = plan.ranks;
  // A sort's exchange keeps 1/P of each rank's part where it is and sends the rest; a
  // write's gathering sends every part but the first rank's. Counts and sums send a word.
  // A reduce whose keys fit a hash table folds each rank's part in half of its memory
  // first (flow/ranks/spread_reduce.hpp, when both halves hold their least budgets): each
  // rank sends its distinct keys, of D in all among its N/P elements on uniform keys
  // D (1 - (1 - 1/D)^(N/P)).
  const double away = ranks > 1 ? static_cast<double>(ranks - 1) / ranks : 0;
  for (Node& n : plan.nodes) {
    // Standard input read whole: the first rank, which mpirun gives it, sends every other
    // rank what it reads (docs/distributed.md): its bytes once per other rank. (Read
    // without `~ N`, its size is not known here: 0.)
    if (!n.spread && (n.kind == Node::ReadFile || n.kind == Node::ReadText)) {
      if (plan.pathValue(n.get<ast::ReadSource>()->path) == "-") n.networkBytes = n.readBytes * (ranks - 1.0);
      continue;
    }
    if (!n.spread || (n.kind != Node::SortRuns && n.kind != Node::ReduceRuns && n.kind != Node::WriteFile)) continue;
    double sent = n.elements;
    const double distinct = n.kind == Node::ReduceRuns ? plan.nodes[n.partner].elements : 0;
    const sort_setup setup{.element_bytes = n.elementBytes, .keyed = n.keyed, .block_bytes = plan.blockBytes};
    if (n.kind == Node::ReduceRuns && n.hashed && ranks > 1 &&
        spread_reduce_folds_first(setup, n.memoryBytes, plan.blockBytes, static_cast<std::uint64_t>(distinct))) {
      const double each = n.elements / ranks;
      const double perRank = distinct > 1 ? -distinct * std::expm1(each * std::log1p(-1 / distinct)) : 1;
      sent = std::min(n.elements, ranks * perRank);
    }
    // and a sample sort's ranks first send one another a sample of their first elements
    const double perRank = std::min(static_cast<double>(sample_sort_samples_per_rank), std::ceil(sent / ranks));
    const double samples = n.kind == Node::WriteFile ? 0 : perRank * ranks * (ranks - 1.0);
    n.networkBytes = (sent * away + samples) * static_cast<double>(n.elementBytes);
  }
}

} // namespace flow::plan
