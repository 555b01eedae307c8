// Pipelines: sources and stages, each typed left to right; where streams and vectors are
// consumed (recorded for the planner, which branches or materializes streams used twice).
#include "sema/checker.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ast/unreachable.hpp"
#include "ast/visit.hpp"

namespace flow::sema {

using namespace flow::ast;

void Checker::consume(Symbol& s, SourceLoc loc, const std::string& what) {
  // A plain block repeats the id of the block around it: it is no block of its own here.
  std::vector<int> blocks;
  for (int id : blockIds_)
    if (blocks.empty() || blocks.back() != id) blocks.push_back(id);
  s.consumers.push_back({loc, what, inLoopBody(), blocks});
}

void Checker::checkLaterReads() {
  // The planner branches a stream to readers that run together and otherwise writes it
  // out where it is first read, for the later readers to read back. That first read must
  // have run whenever a later one runs: it must be in the same block or one around it.
  for (const Symbol& s : out_.symbols) {
    if (s.kind != Symbol::Stream || s.consumers.size() < 2) continue;
    const Consumer& first = s.consumers.front();
    for (size_t k = 1; k < s.consumers.size(); ++k) {
      const Consumer& later = s.consumers[k];
      const bool encloses = first.blocks.size() <= later.blocks.size() &&
                            std::equal(first.blocks.begin(), first.blocks.end(), later.blocks.begin());
      if (encloses) continue;
      error(later.loc, "stream '" + s.name + "' is read here after a first read that may not have run (it is in an "
                       "if, else or loop body that this read is not in); a stream read twice is written out at its "
                       "first read, so read it first where every later read follows, or store it: vector " +
                       s.name + "_all = " + s.name + ";");
      note(first.loc, "first read here");
      break;
    }
  }
}

void Checker::checkEstimate(std::optional<Estimate>& e, EstimateOf what) {
  if (!e) return;
  // A constant expression over params: its value with the params' defaults here, with
  // the values planned for in the planner.
  const Type* t = check(*e->expr);
  if (t->isError()) return;
  if (!t->isNumeric()) {
    error(e->loc, "an estimate is a number, not " + t->name());
    return;
  }
  std::string why;
  bool readsArgument = false;
  auto v = evaluate(
      *e->expr,
      [&readsArgument](const Symbol* s) {
        readsArgument = readsArgument || s->argument;
        return s->kind == Symbol::Param ? s->value : std::nullopt;
      },
      &why);
  if (!v && readsArgument) {
    // In a function body, over a value parameter whose argument at this call is computed
    // when the program runs (`stats.largest_k(s, z + 2)` in a loop): the estimate is not
    // known at this call, as if it were not written. The function works with any argument.
    e.reset();
    return;
  }
  if (!v) {
    error(e->loc, "an estimate is a constant expression over params (such as ~ edges / 2): " + why);
    return;
  }
  e->value = v->asDouble();
  switch (what) {
  case EstimateOf::fraction:
    if (e->value < 0 || e->value > 1)
      error(e->loc, "a selectivity is the fraction of elements that pass, between 0 and 1, not " + e->text);
    return;
  case EstimateOf::distinct:
    if (e->value < 0 || e->value > 1)
      error(e->loc, "this estimate is the distinct keys per element (distinct keys / elements), between 0 and 1, not " +
                        e->text);
    return;
  case EstimateOf::ratio:
    if (e->value < 0 || !std::isfinite(e->value))
      error(e->loc, "a for stage's estimate is the elements it emits per element it takes, 0 or more, not " + e->text);
    return;
  case EstimateOf::count:
    if (e->value < 0 || e->value != static_cast<double>(static_cast<uint64_t>(e->value)))
      error(e->loc, "an element count must be a whole number, not " + e->text);
    return;
  }
}

bool Checker::requireTextual(const Type* type, SourceLoc loc, const std::string& what) {
  // Text holds one element per line as whitespace-separated scalars.
  if (type->isError()) return false;
  if (type->isScalar()) return true;
  if (type->kind == Type::Array) return requireTextual(type->element, loc, what);
  if (type->kind == Type::Record) {
    for (const FieldInfo& f : type->record->fields)
      if (!requireTextual(f.type, loc, what)) return false;
    return true;
  }
  error(loc, what + " cannot hold " + type->name());
  return false;
}

bool Checker::requireCsvRecord(const Type* type, SourceLoc loc, const std::string& what) {
  // A CSV record is a row of named columns: one per field, each a number, bool or str.
  if (type->isError()) return false;
  bool flat = type->kind == Type::Record && !type->record->fields.empty();
  if (flat)
    for (const FieldInfo& f : type->record->fields) flat = flat && f.type->isScalar() && !f.type->isUntyped();
  if (!flat)
    error(loc, what + " needs a record whose fields are numbers, bools or strs (a column each); " + type->name() +
                   " is not one");
  return flat;
}

bool Checker::readableInOrder(const Pipeline& p) const {
  if (!p.stages.empty()) return p.stages.back()->as<SortStage>() != nullptr;
  const Source& src = *p.source;
  if (src.as<ScanSource>() || src.as<ReadSource>() || src.as<MergeSource>()) return true;
  if (auto* e = src.as<ExprSource>(); e && e->expr->as<MethodCallExpr>()) return true; // q.pop_below: in q's order
  if (auto* e = src.as<ExprSource>())
    if (auto* n = e->expr->as<NameExpr>(); n && n->symbol) {
      if (n->symbol->kind == Symbol::Vector) return true;
      if (n->symbol->kind == Symbol::Stream && n->symbol->pipeline) return readableInOrder(*n->symbol->pipeline);
    }
  return false;
}

const OrderInfo* Checker::knownOrder(const Pipeline& p) const {
  if (!p.stages.empty()) {
    auto* so = p.stages.back()->as<SortStage>();
    return so && so->order ? so->order->order : nullptr;
  }
  if (auto* m = p.source->as<MergeSource>()) return m->order.order;
  if (const OrderInfo* q = popBelowOrder(*p.source)) return q;
  if (auto* e = p.source->as<ExprSource>())
    if (auto* n = e->expr->as<NameExpr>(); n && n->symbol && n->symbol->kind == Symbol::Stream && n->symbol->pipeline)
      return knownOrder(*n->symbol->pipeline);
  return nullptr; // a vector or a file: in whatever order it was written
}

const Type* Checker::checkPipeline(Pipeline& p, const std::string& consumer) {
  const Type* t = checkSource(*p.source, consumer);
  p.source->elementType = t;
  Ordering order = t->isError() ? Ordering{} : sourceOrdering(*p.source);
  for (StagePtr& s : p.stages) {
    if (t->isError()) break;
    if (auto* r = s->as<ReduceStage>()) r->inputSorted = false;
    t = checkStage(*s, t);
    s->elementType = t;
    if (t->isError()) break;
    if (auto* r = s->as<ReduceStage>()) r->inputSorted = satisfies(order, orderingOf(r->keyOrder));
    order = stageOrdering(*s, order);
  }
  p.elementType = t;
  orderings_[&p] = order;
  if (auto* j = p.source->as<JoinSource>(); j && !t->isError()) j->orderFree = orderFreeJoin(p, j->mergeOnly);
  return t;
}

namespace {

/// What in a function's body reads more than its parameters, params and constants (a
/// variable, an array or vector, rand(), an aggregate, a queue): the expression and why,
/// or null.
std::pair<const Expr*, std::string> impureUse(const Lambda& fn) {
  struct Finder : Visitor {
    const Lambda& fn;
    const Expr* culprit = nullptr;
    std::string why;
    // The parameters of value functions called in the body: each holds an argument the
    // body computed (this walk checks the arguments themselves).
    std::set<const Symbol*> inlinedParams;
    explicit Finder(const Lambda& f) : fn(f) {}
    bool visit(const Expr& e) override {
      if (culprit) return false;
      if (auto* c = e.as<CallExpr>(); c && c->inlined) inlinedParams.insert(c->params.begin(), c->params.end());
      if (auto* n = e.as<NameExpr>(); n && n->symbol) {
        bool own = inlinedParams.count(n->symbol) > 0;
        for (const Lambda::Param& p : fn.params) own = own || p.symbol == n->symbol;
        const Symbol::Kind k = n->symbol->kind;
        if (!own && k != Symbol::Param && k != Symbol::Record && k != Symbol::Order) {
          culprit = &e;
          why = "'" + n->symbol->name + "' (a " + n->symbol->kindName() + ")";
        }
      }
      if (auto* c = e.as<CallExpr>(); c && (c->aggregate || (c->builtin && *c->builtin == Builtin::Rand))) {
        culprit = &e;
        why = c->aggregate ? "an aggregate" : "rand()";
      }
      if (e.as<MethodCallExpr>()) {
        culprit = &e;
        why = "a queue or vector";
      }
      return true;
    }
  } finder(fn);
  finder.walk(*fn.body);
  return {finder.culprit, finder.why};
}

} // namespace

namespace {

/// Whether a value of the type may hold a floating-point number (an imported C++ record
/// may hold anything): a fold of such values depends on the order it sees them in.
bool mayHoldFloat(const Type* t) {
  if (t->isFloat()) return true;
  if (t->kind == Type::Array) return mayHoldFloat(t->element);
  if (t->kind == Type::Record) {
    if (t->record->imported) return true;
    for (const FieldInfo& f : t->record->fields)
      if (mayHoldFloat(f.type)) return true;
  }
  return false;
}

/// Whether an expression draws rand() or calls a script function (which may): its values
/// depend on the order elements pass it.
bool drawsOrCalls(const Expr& e) {
  struct Finder : Visitor {
    bool found = false;
    bool visit(const Expr& x) override {
      if (auto* c = x.as<CallExpr>(); c && (c->builtin ? *c->builtin == Builtin::Rand : true)) found = true;
      return !found;
    }
  } finder;
  finder.walk(e);
  return finder.found;
}

} // namespace

bool Checker::orderFreeJoin(const Pipeline& p, std::string& mergeOnly) const {
  auto& j = *p.source->as<JoinSource>();
  // What reads the output: a reduce through maps and filters that draw nothing, or else
  // something that sees its key order (then no reason is given: that is the usual case).
  const ReduceStage* reduce = nullptr;
  std::string stages;
  for (const StagePtr& s : p.stages) {
    if (auto* m = s->as<MapStage>()) {
      if (drawsOrCalls(*m->body)) stages = "a map after it draws rand() or calls a function";
    } else if (auto* f = s->as<FilterStage>()) {
      if (drawsOrCalls(*f->cond)) stages = "a filter after it draws rand() or calls a function";
    } else if (auto* r = s->as<ReduceStage>()) {
      reduce = r;
      break;
    } else {
      return false; // read as it comes: in key order
    }
  }
  if (!reduce) return false;
  const auto merge = [&](std::string why) {
    mergeOnly = std::move(why);
    return false;
  };
  if (!stages.empty()) return merge(stages);
  if (reduce->inputSorted) return false; // the reduce folds the merge join's output as it comes
  if (mayHoldFloat(reduce->elementType)) return merge("the reduce after it folds floats, whose sums depend on the order");
  if (j.left) return merge("a left join's unmatched rows would need the whole right input first");
  if (impureUse(j.fn).first) return merge("its function draws rand() or calls a function (a hash join runs it on all threads)");
  for (const OrderKeyInfo& k : orderingOf(j.keys[0].resolved))
    if (!(k.type->isInteger() || k.type->kind == Type::Bool || k.type->isStr()))
      return merge("its keys are not integers, bools or strs");
  // A hash join pulls its inputs without the sorts inserted for a merge join: an input
  // that ends in a for stage cannot be pulled. (A named stream that other statements read
  // too is written out first: plan/flow_graph.cpp, streamsToWriteFirst.)
  for (const PipelinePtr& in : j.inputs)
    if (!readableSideBySide(*in, true)) return merge("an input ends in a for stage, which a hash join cannot pull");
  return true; // (the reduce's function is pure: pureFunction)
}

const Type* Checker::checkLambda(Lambda& fn, const std::vector<const Type*>& params, const std::string& what,
                                 const std::vector<std::string>& paramNames) {
  if (fn.params.size() != params.size()) {
    std::string names;
    static const char* letters[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (size_t i = 0; i < params.size(); ++i)
      names += (i ? ", " : "") + (i < paramNames.size() ? paramNames[i] : i < 8 ? letters[i] : "x" + std::to_string(i));
    error(fn.loc, what + " takes " + std::to_string(params.size()) + " parameter" + (params.size() == 1 ? "" : "s") +
                      " (" + names + "), not " + std::to_string(fn.params.size()));
    return out_.types.error();
  }
  pushScope();
  for (size_t i = 0; i < params.size(); ++i) {
    Symbol p{Symbol::LambdaVar, fn.params[i].name, fn.params[i].loc};
    p.type = params[i];
    fn.params[i].symbol = &declare(std::move(p));
  }
  return elementValue(*fn.body, checkPerElement(*fn.body), what + " must compute a value");
}

const Type* Checker::checkPerElement(Expr& body) {
  ++lambdaDepth_;
  const Type* t = check(body);
  --lambdaDepth_;
  popScope();
  return t;
}

const Type* Checker::elementValue(Expr& body, const Type* t, const std::string& needs) {
  if (t->isError()) return t;
  t = finalize(body);
  if (t->kind == Type::Void) {
    error(body.loc, needs + ", not " + t->name());
    return out_.types.error();
  }
  return t;
}

bool Checker::readableSideBySide(const Pipeline& p, bool withoutInsertedSort) const {
  // From its end back: a sort (or a reduce's combining sort) can be read element by
  // element; a for stage emits when it likes; map, filter, unique and take pass through.
  auto it = p.stages.rbegin();
  if (withoutInsertedSort && it != p.stages.rend())
    if (auto* so = (*it)->as<SortStage>(); so && !so->insertedFor.empty()) ++it;
  for (; it != p.stages.rend(); ++it) {
    if ((*it)->as<SortStage>()) return true;
    if (auto* r = (*it)->as<ReduceStage>(); r && !r->inputSorted) return true;
    if ((*it)->as<ForStage>()) return false;
  }
  if (p.source->as<ConcatSource>()) return false;
  if (auto* e = p.source->as<ExprSource>())
    if (auto* n = e->expr->as<NameExpr>(); n && n->symbol && n->symbol->kind == Symbol::Stream && n->symbol->pipeline)
      return readableSideBySide(*n->symbol->pipeline);
  return true;
}

bool Checker::pureFunction(const Lambda& fn, const std::string& what) {
  // A reduce's function runs while runs are formed and merged, on other threads and in
  // no fixed order: it may read only its parameters, params and constants.
  auto [culprit, why] = impureUse(fn);
  if (!culprit) return true;
  error(culprit->loc, what + " may use only its parameters, params and constants, not " + why +
                          ": it runs as runs are formed and merged, in no fixed order");
  return false;
}

const Type* Checker::checkJoin(JoinSource& j) {
  const char* name = j.left ? "left_join" : "join";
  const Type* types[2];
  for (int side = 0; side < 2; ++side) types[side] = checkPipeline(*j.inputs[side], name);
  if (types[0]->isError() || types[1]->isError()) return out_.types.error();
  // Each side's key as an order on that side's elements.
  for (int side = 0; side < 2; ++side) {
    JoinKey& key = j.keys[side];
    const std::string user = std::string("this ") + name + " input";
    if (key.order) {
      key.resolved = resolveOrder(*key.order, types[side], user, true);
      if (!key.resolved) return out_.types.error();
      if (key.resolved->kind == OrderInfo::Cpp) {
        error(key.order->loc, std::string(name) + " compares the keys of its two inputs field by field, so it needs "
                                                  "an order with keys, not the C++ comparator of '" +
                                  key.resolved->name + "'; write the key fields: by (field, …)");
        return out_.types.error();
      }
      continue;
    }
    if (types[side]->kind != Type::Record) {
      error(key.loc, std::string(name) + " by (key, …) picks fields of a record; " + types[side]->name() +
                         " has none, so write 'by asc' (or 'by desc') to join by the whole element");
      return out_.types.error();
    }
    std::vector<OrderKeyInfo> keys;
    for (OrderKey& k : key.keys) {
      OrderKeyInfo info;
      info.descending = k.descending;
      if (!checkKeyPath(*k.key, types[side], info)) return out_.types.error();
      keys.push_back(std::move(info));
    }
    key.resolved = keyListOrder(std::move(keys), types[side], key.loc);
  }
  // The two keys must compare: as many keys, each the same type (or integers of the same
  // signedness, compared by value), in the same direction.
  const Ordering left = orderingOf(j.keys[0].resolved), right = orderingOf(j.keys[1].resolved);
  if (left.size() != right.size()) {
    error(j.keys[1].loc, std::string("the keys of a ") + name + " must match one for one: the left input has " +
                             std::to_string(left.size()) + " key" + (left.size() == 1 ? "" : "s") + ", the right " +
                             std::to_string(right.size()));
    return out_.types.error();
  }
  for (size_t i = 0; i < left.size(); ++i) {
    const Type* a = left[i].type;
    const Type* b = right[i].type;
    const bool comparable =
        a == b || (a->isInteger() && b->isInteger() && a->isSigned() == b->isSigned() && !a->isUntyped());
    if (!comparable) {
      error(j.keys[1].loc, "key " + std::to_string(i + 1) + " of the " + name + " is " + a->name() + " ('" +
                               left[i].text + "') on the left and " + b->name() + " ('" + right[i].text +
                               "') on the right; they must have the same type (cast one side in a map)");
      return out_.types.error();
    }
    if (left[i].descending != right[i].descending) {
      error(j.keys[1].loc, "key " + std::to_string(i + 1) + " of the " + name + " is " +
                               (left[i].descending ? "descending" : "ascending") + " on the left and " +
                               (right[i].descending ? "descending" : "ascending") + " on the right; give both the same direction");
      return out_.types.error();
    }
  }
  std::vector<const Type*> params = {types[0], types[1]};
  if (j.left) params.push_back(out_.types.scalar(Type::Bool));
  const Type* t = checkLambda(j.fn, params, std::string(name) + "'s function", {"a", "b", "found"});
  if (t->isError()) return t;
  checkEstimate(j.estimate, EstimateOf::count);
  // A join reads both inputs side by side in key order: sort an input that is not in it.
  const std::string at = std::string(name) + " at " + describe(j.loc);
  for (int side = 0; side < 2; ++side) sortIfNeeded(*j.inputs[side], j.keys[side].resolved, at);
  return t;
}

const Type* Checker::checkSource(Source& s, const std::string& consumer) {
  const Type* u64 = out_.types.scalar(Type::U64);
  switch (s.kind()) {
  case Source::Generate: {
    auto& g = *s.as<GenerateSource>();
    const Type* n = check(*g.count, u64);
    if (!n->isError()) convert(*g.count, u64, "as the count of generate");
    pushScope();
    Symbol index{Symbol::Index, "i", g.loc};
    index.type = u64;
    g.indexSymbol = &declare(std::move(index));
    return elementValue(*g.body, checkPerElement(*g.body), "generate needs a value to produce");
  }
  case Source::Range: {
    auto& r = *s.as<RangeSource>();
    const Type* a = check(*r.begin);
    const Type* b = check(*r.end);
    if (a->isError() || b->isError()) return out_.types.error();
    const Type* t = unify(*r.begin, *r.end, "range", r.loc);
    if (!t) return out_.types.error();
    if (!t->isInteger()) {
      error(r.loc, "range needs integer bounds, not " + t->name());
      return out_.types.error();
    }
    if (t->isUntyped()) {
      convert(*r.begin, u64, "as a bound of range");
      convert(*r.end, u64, "as a bound of range");
      t = u64;
    }
    return t;
  }
  case Source::Read:
  case Source::ReadText: {
    auto& r = *s.as<ReadSource>();
    checkPath(r.path);
    checkEstimate(r.estimate, EstimateOf::count);
    const Type* t = resolveType(*r.type);
    if (t->isError()) return t;
    if (r.csv) return requireCsvRecord(t, r.type->loc, "read_csv") ? t : out_.types.error();
    if (r.text && !requireTextual(t, r.type->loc, "read_text")) return out_.types.error();
    return t;
  }
  case Source::Scan: {
    auto& sc = *s.as<ScanSource>();
    Symbol* v = lookup(sc.vector);
    if (!v || v->kind != Symbol::Vector) {
      if (v) error(sc.vectorLoc, "scan() reads a vector; '" + sc.vector + "' is a " + v->kindName());
      else error(sc.vectorLoc, "unknown vector '" + sc.vector + "'" + suggest(sc.vector, namesInScope()));
      return out_.types.error();
    }
    sc.symbol = v;
    consume(*v, sc.loc, consumer);
    return v->type;
  }
  case Source::Merge: {
    auto& m = *s.as<MergeSource>();
    if (m.inputs.size() < 2) {
      error(m.loc, "merge needs at least two inputs");
      return out_.types.error();
    }
    const Type* t = nullptr;
    bool ok = true;
    for (PipelinePtr& input : m.inputs) {
      const Type* it = checkPipeline(*input, "merge");
      if (it->isError()) {
        ok = false;
        continue;
      }
      if (!t) t = it;
      else if (it != t) {
        error(input->loc, "merge inputs must hold one type: this one holds " + it->name() + ", the first " + t->name());
        ok = false;
      }
    }
    if (!ok || !t) return out_.types.error();
    if (!resolveOrder(m.order, t, "the merge", true)) return out_.types.error();
    // A merge reads its inputs side by side, so each must be readable in order on its
    // own: a sort's output, a vector, a file, a merge, or a stream that is one of these.
    for (PipelinePtr& input : m.inputs) {
      // An input sorted by another order would be merged as if it were in this one.
      if (const OrderInfo* o = knownOrder(*input); o && o != m.order.order) {
        error(input->loc, "this merge input is sorted by '" + o->name + "', but the merge is by '" + m.order.order->name +
                              "'; sort it by '" + m.order.order->name + "'");
        return out_.types.error();
      }
    }
    for (PipelinePtr& input : m.inputs)
      if (!readableInOrder(*input)) {
        error(input->loc, "a merge input must end in 'sort' (or be a vector, a file, a merge, a q.pop_below(…) or a "
                          "stream that ends in 'sort'), so the merge can read it in order");
        return out_.types.error();
      }
    return t;
  }
  case Source::Join: return checkJoin(*s.as<JoinSource>());
  case Source::Zip: {
    auto& z = *s.as<ZipSource>();
    if (z.inputs.size() < 2) {
      error(z.loc, "zip needs at least two inputs");
      return out_.types.error();
    }
    std::vector<const Type*> types;
    for (PipelinePtr& input : z.inputs) {
      types.push_back(checkPipeline(*input, "zip"));
      if (types.back()->isError()) return out_.types.error();
      if (!readableSideBySide(*input)) {
        error(input->loc, "zip reads its inputs side by side, one element of each at a time, and this input cannot "
                          "be read that way (it ends in a for stage or is a concat); write it to a vector first "
                          "(vector v = …;) and zip v");
        return out_.types.error();
      }
    }
    return checkLambda(z.fn, types, "zip's function");
  }
  case Source::Concat: {
    auto& c = *s.as<ConcatSource>();
    const Type* t = nullptr;
    for (PipelinePtr& input : c.inputs) {
      const Type* it = checkPipeline(*input, "concat");
      if (it->isError()) return it;
      if (!t) t = it;
      else if (it != t) {
        error(input->loc, "concat inputs must hold one type: this one holds " + it->name() + ", the first " + t->name());
        return out_.types.error();
      }
    }
    return t;
  }
  case Source::ExprSrc: {
    Expr& e = *s.as<ExprSource>()->expr;
    if (auto* m = e.as<MethodCallExpr>(); m && m->method == "pop_below") return checkPopBelow(*m);
    auto* name = e.as<NameExpr>();
    Symbol* sym = name && name->name.parts.size() == 1 ? lookup(name->name.str()) : nullptr;
    if (sym && (sym->kind == Symbol::Stream || sym->kind == Symbol::Vector)) {
      name->symbol = sym;
      name->type = sym->type;
      consume(*sym, name->loc, consumer);
      return sym->type;
    }
    if (sym) {
      error(e.loc, "a pipeline starts from a stream, a vector or a source such as range(…); '" + sym->name +
                       "' is a " + sym->kindName() +
                       (sym->kind == Symbol::Queue ? " (its items before a limit: " + sym->name + ".pop_below(limit))"
                                                   : ""));
    } else if (name) {
      error(e.loc, "unknown stream or vector '" + name->name.str() + "'" + suggest(name->name.str(), namesInScope()));
    } else if (auto* call = e.as<CallExpr>(); call && call->callee.parts.size() == 1 && !lookup(call->callee.str())) {
      unknownFunction(*call); // a function's call would have been expanded: this one names none
    } else {
      error(e.loc, "a pipeline starts from a stream, a vector or a source such as range(…) or generate(…)");
    }
    return out_.types.error();
  }
  }
  // An error type here would have no diagnostic: the script would fail without a word.
  unreachable("sema: a source of no known kind");
}

const Type* Checker::checkPopBelow(MethodCallExpr& m) {
  // `q.pop_below(limit)`: the queue's items before `limit` in its order, taken out of it
  // as the pipeline goes (flow::stream::queue_below).
  auto* object = m.object->as<NameExpr>();
  Symbol* q = object && object->name.parts.size() == 1 ? lookup(object->name.str()) : nullptr;
  if (!q || q->kind != Symbol::Queue) {
    error(m.methodLoc, "'pop_below' is a method of a priority queue" +
                           std::string(q ? ": '" + q->name + "' is a " + q->kindName() : ""));
    return out_.types.error();
  }
  if (m.args.size() != 1) {
    error(m.methodLoc, "'pop_below' takes 1 argument (the limit: an item of the queue's type), but " +
                           std::to_string(m.args.size()) + (m.args.size() == 1 ? " was" : " were") + " given");
    return out_.types.error();
  }
  object->symbol = q;
  object->type = q->type;
  m.container = q;
  m.methodId = ast::Method::PopBelow;
  if (q->type->isError() || check(*m.args[0], q->type)->isError()) return out_.types.error();
  if (!convert(*m.args[0], q->type, "in '" + q->name + ".pop_below(limit)'")) return out_.types.error();
  m.type = q->type;
  return q->type;
}

const Type* Checker::checkNamedStage(NamedStage& s, const Type* input) {
  const std::optional<StageId> id = findStage(s.name);
  if (!id) {
    const std::vector<std::string> names(stageNames().begin(), stageNames().end());
    std::string near = suggest(s.name, names);
    if (near.empty()) {
      near = "; the stages are";
      for (const std::string& n : names) near += (n == names.front() ? " " : ", ") + n;
    }
    error(s.loc, "unknown stage '" + s.name + "'" + near);
    return out_.types.error();
  }
  s.id = id;
  const StageInfo& stage = info(*id);
  const std::string name = stage.name;
  switch (stage.argument) {
  case StageArgument::none:
    if (s.argument) {
      error(s.argument->loc, "'" + name + "' takes no argument");
      return out_.types.error();
    }
    break;
  case StageArgument::constant_count: {
    if (!s.argument) {
      error(s.loc, "'" + name + "' takes a count: " + name + " N, with N a constant such as 3");
      return out_.types.error();
    }
    const Type* u64 = out_.types.scalar(Type::U64);
    if (check(*s.argument, u64)->isError() || !convert(*s.argument, u64, "as the count of " + name))
      return out_.types.error();
    // Params are known only when the program runs, after the type is fixed.
    std::string why;
    const auto n = evaluate(*s.argument, [](const Symbol*) { return std::nullopt; }, &why);
    if (!n) {
      error(s.argument->loc, "the count of " + name + " must be a constant (it is part of the type " + name +
                                 " puts out): " + why);
      return out_.types.error();
    }
    if (n->i <= 0 || n->i > (1 << 24)) {
      error(s.argument->loc, "the count of " + name + " must be between 1 and 16777216, not " + n->str());
      return out_.types.error();
    }
    s.constantArgument = static_cast<uint64_t>(n->i);
    break;
  }
  case StageArgument::fraction: {
    if (!s.argument) {
      error(s.loc, "'" + name + "' takes a fraction: " + name + " F, with F between 0 and 1 (" + name + " 0.01)");
      return out_.types.error();
    }
    const Type* f64 = out_.types.scalar(Type::F64);
    if (check(*s.argument, f64)->isError() || !convert(*s.argument, f64, "as the fraction of " + name))
      return out_.types.error();
    if (const auto f = constant(*s.argument, nullptr); f && !(f->asDouble() >= 0 && f->asDouble() <= 1)) {
      error(s.argument->loc, "the fraction of " + name + " must be between 0 and 1, not " + f->str());
      return out_.types.error();
    }
    break;
  }
  }
  switch (stage.output) {
  case StageOutput::input: return input;
  case StageOutput::array_of_input: return out_.types.array(input, s.constantArgument);
  case StageOutput::indexed_input: return indexedRecord(input, s.loc);
  }
  unreachable("sema: a named stage of no known output");
}

const Type* Checker::indexedRecord(const Type* value, SourceLoc loc) {
  if (auto it = indexedRecords_.find(value); it != indexedRecords_.end()) return it->second;
  RecordInfo& r = out_.records.emplace_back();
  r.name = "Indexed<" + value->name() + ">";
  r.cppName = r.name;
  r.loc = loc;
  r.fields.push_back({.name = "index", .type = out_.types.scalar(Type::U64), .loc = loc});
  r.fields.push_back({.name = "value", .type = value, .loc = loc});
  TypeContext::layOut(r);
  return indexedRecords_[value] = out_.types.record(&r);
}

const Type* Checker::checkStage(Stage& s, const Type* input) {
  switch (s.kind()) {
  case Stage::Map:
  case Stage::Filter: {
    bool isMap = s.kind() == Stage::Map;
    ElementVar& var = isMap ? static_cast<ElementVar&>(*s.as<MapStage>()) : *s.as<FilterStage>();
    Expr& body = isMap ? *s.as<MapStage>()->body : *s.as<FilterStage>()->cond;
    pushScope();
    declareElement(var, Symbol::LambdaVar, input);
    const Type* t = checkPerElement(body);
    if (t->isError()) return t;
    if (!isMap) {
      checkEstimate(s.as<FilterStage>()->estimate, EstimateOf::fraction);
      if (t->kind != Type::Bool) {
        error(body.loc, "a filter condition must be a bool, not " + t->name());
        return out_.types.error();
      }
      return input;
    }
    return elementValue(body, t, "map needs a value for each element");
  }
  case Stage::Sort: {
    auto& so = *s.as<SortStage>();
    if (!so.order) {
      if (!input->isOrderable()) {
        error(so.loc, "'sort' alone sorts scalars and arrays; " + input->name() +
                          " needs an order: sort by NAME, with order NAME on " + input->name() + " = (field asc, …)");
        return out_.types.error();
      }
      so.order = OrderRef{};
      so.order->loc = so.loc;
    }
    return resolveOrder(*so.order, input, "the sorted stream", true) ? input : out_.types.error();
  }
  case Stage::Unique: {
    auto& u = *s.as<UniqueStage>();
    checkEstimate(u.estimate, EstimateOf::distinct);
    if (u.keys.empty()) {
      if (input->kind == Type::Record)
        for (const FieldInfo& f : input->record->fields)
          if (f.type->isFloat()) {
            error(u.loc, "'unique' compares whole elements, and field '" + f.name + "' of " + input->name() +
                             " is a float; name the key fields: unique (field, …)");
            return out_.types.error();
          }
      return input;
    }
    if (input->kind != Type::Record) {
      error(u.loc, "unique (key, …) picks fields of a record; " + input->name() + " has none, so write just 'unique'");
      return out_.types.error();
    }
    for (ExprPtr& key : u.keys) {
      OrderKeyInfo info;
      if (!checkKeyPath(*key, input, info)) return out_.types.error();
    }
    return input;
  }
  case Stage::Named: return checkNamedStage(*s.as<NamedStage>(), input);
  case Stage::Take: {
    auto& t = *s.as<TakeStage>();
    const Type* u64 = out_.types.scalar(Type::U64);
    const Type* n = check(*t.count, u64);
    if (n->isError() || !convert(*t.count, u64, "as the count of take")) return out_.types.error();
    return input;
  }
  case Stage::For: {
    auto& f = *s.as<ForStage>();
    checkEstimate(f.estimate, EstimateOf::ratio);
    pushScope();
    declareElement(f, Symbol::LambdaVar, input);
    stages_.push_back({&f, nullptr, loopDepth_});
    int savedLoops = loopDepth_;
    loopDepth_ = 0; // a for stage's body runs once per element; it is not a loop to break out of
    checkBlock(f.body);
    popScope();
    if (f.hasEnd) {
      // After the last element: the element variable is gone; emits go to the same place.
      pushScope();
      checkBlock(f.end);
      popScope();
    }
    loopDepth_ = savedLoops;
    const Type* emitted = stages_.back().emitted;
    stages_.pop_back();
    if (!emitted) {
      error(f.loc, "this for stage never emits, so nothing comes out of it; add 'emit value;' (or consume the "
                   "stream with a top-level 'for x in …' loop)");
      return out_.types.error();
    }
    return emitted;
  }
  case Stage::Reduce: {
    auto& r = *s.as<ReduceStage>();
    checkEstimate(r.estimate, EstimateOf::distinct);
    if (input->kind != Type::Record) {
      error(r.loc, "reduce (key, …) groups records by key fields; " + input->name() +
                       " has none (to drop repeated values use 'unique'; to count them, map each to a record "
                       "with a count field first)");
      return out_.types.error();
    }
    std::vector<OrderKeyInfo> keys;
    for (ExprPtr& key : r.keys) {
      OrderKeyInfo info;
      if (!checkKeyPath(*key, input, info)) return out_.types.error();
      for (const OrderKeyInfo& other : keys)
        if (other.text == info.text) {
          error(key->loc, "key '" + info.text + "' appears twice in this reduce");
          return out_.types.error();
        }
      keys.push_back(std::move(info));
    }
    r.keyOrder = keyListOrder(std::move(keys), input, r.loc);
    const Type* t = checkLambda(r.fn, {input, input}, "reduce's function");
    if (t->isError()) return t;
    if (!pureFunction(r.fn, "reduce's function")) return out_.types.error();
    if (t != input && !t->isUntyped()) {
      error(r.fn.body->loc, "reduce's function combines two " + input->name() + " into one " + input->name() +
                                ", but it returns " + t->name());
      return out_.types.error();
    }
    if (!convert(*r.fn.body, input, "as the result of reduce's function")) return out_.types.error();
    return input;
  }
  }
  return out_.types.error();
}

} // namespace flow::sema
