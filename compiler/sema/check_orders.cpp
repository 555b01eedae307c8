// The order a pipeline's elements come out in, tracked stage by stage, so that a join or
// a reduce sorts only an input that is not already in the order it needs. Orders are
// compared by their keys (field paths and directions), not by name: `sort by by_cust`
// satisfies `join(… by (cust), …)` when by_cust's first key is `cust asc`.
#include "sema/checker.hpp"

#include "ast/unreachable.hpp"
#include "ast/visit.hpp"

namespace flow::sema {

using namespace flow::ast;

namespace {

bool sameKey(const OrderKeyInfo& a, const OrderKeyInfo& b) {
  if (a.descending != b.descending || a.path.size() != b.path.size()) return false;
  for (size_t i = 0; i < a.path.size(); ++i)
    if (a.path[i].field != b.path[i].field || a.path[i].index != b.path[i].index) return false;
  return true;
}

/// The key path an expression reads from `var`, if it is one: `x` (the whole element,
/// an empty path), `x.src`, `x.key[0]`.
std::optional<std::vector<OrderKeyInfo::Step>> pathFrom(const Expr& e, const Symbol* var) {
  std::vector<OrderKeyInfo::Step> steps;
  const Expr* at = &e;
  while (true) {
    if (auto* f = at->as<FieldExpr>()) {
      steps.insert(steps.begin(), {f->field, 0});
      at = f->object.get();
    } else if (auto* i = at->as<IndexExpr>()) {
      auto v = evaluate(*i->index, [](const Symbol*) { return std::nullopt; });
      if (!v || v->kind != ConstValue::Int || v->i < 0) return std::nullopt;
      steps.insert(steps.begin(), {"", static_cast<uint64_t>(v->i)});
      at = i->object.get();
    } else {
      break;
    }
  }
  auto* root = at->as<NameExpr>();
  if (!root || root->symbol != var) return std::nullopt;
  return steps;
}

bool samePath(const std::vector<OrderKeyInfo::Step>& a, const std::vector<OrderKeyInfo::Step>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].field != b[i].field || a[i].index != b[i].index) return false;
  return true;
}

} // namespace

bool Checker::satisfies(const Ordering& have, const Ordering& need) {
  if (need.empty() || need.size() > have.size()) return false;
  for (size_t i = 0; i < need.size(); ++i)
    if (!sameKey(have[i], need[i])) return false;
  return true;
}

Checker::Ordering Checker::orderingOf(const OrderInfo* o) {
  if (!o) return {};
  switch (o->kind) {
  case OrderInfo::Asc:
  case OrderInfo::Desc: {
    OrderKeyInfo whole;
    whole.descending = o->kind == OrderInfo::Desc;
    whole.type = o->type;
    whole.text = o->name;
    return {whole};
  }
  case OrderInfo::Keys: return o->keys;
  case OrderInfo::Cpp: return {}; // opaque: only the same order is known to match
  }
  unreachable("sema: an order of no known kind");
}

Checker::Ordering Checker::throughFunction(const Ordering& in, const Expr& body,
                                           const std::vector<std::pair<const Symbol*, Ordering>>& vars) {
  // Key i of the input passes through when the result is an input itself, or a record
  // with a field set to that key of an input; the order kept is the longest such prefix.
  Ordering out;
  for (size_t k = 0; k < in.size(); ++k) {
    bool found = false;
    for (const auto& [var, keys] : vars) {
      if (k >= keys.size()) continue;
      if (body.as<NameExpr>() && body.as<NameExpr>()->symbol == var) {
        out.push_back(in[k]);
        found = true;
        break;
      }
      if (auto* r = body.as<RecordInitExpr>()) {
        for (const FieldInit& f : r->fields) {
          auto path = pathFrom(*f.value, var);
          if (!path || !samePath(*path, keys[k].path)) continue;
          OrderKeyInfo key = in[k];
          key.path = {{f.field, 0}};
          key.text = f.field;
          out.push_back(key);
          found = true;
          break;
        }
      } else if (auto path = pathFrom(body, var); path && k == 0 && samePath(*path, keys[k].path)) {
        // A scalar result that is the first key: ordered by itself.
        OrderKeyInfo whole = in[k];
        whole.path.clear();
        out.push_back(whole);
        return out;
      }
      if (found) break;
    }
    if (!found) break;
  }
  return out;
}

Checker::Ordering Checker::sourceOrdering(const Source& s) const {
  switch (s.kind()) {
  case Source::Range: {
    OrderKeyInfo whole;
    whole.type = s.elementType;
    whole.text = "asc";
    return {whole};
  }
  case Source::Merge: return orderingOf(s.as<MergeSource>()->order.order);
  case Source::Join: {
    auto& j = *s.as<JoinSource>();
    // Ordered by the key, as far as the function passes the key through (a left join's
    // unmatched rows have a zero right side, so only the left side's key counts).
    std::vector<std::pair<const Symbol*, Ordering>> vars = {{j.fn.params[0].symbol, orderingOf(j.keys[0].resolved)}};
    if (!j.left) vars.push_back({j.fn.params[1].symbol, orderingOf(j.keys[1].resolved)});
    return throughFunction(orderingOf(j.keys[0].resolved), *j.fn.body, vars);
  }
  case Source::Scan: return namedOrdering(s.as<ScanSource>()->symbol);
  case Source::ExprSrc:
    if (auto* n = s.as<ExprSource>()->expr->as<NameExpr>()) return namedOrdering(n->symbol);
    return orderingOf(popBelowOrder(s));
  // Listed, not a default: a new source's order should be a decision, not an accident.
  case Source::Generate:
  case Source::Read:
  case Source::ReadText:
  case Source::Zip:
  case Source::Concat: return {}; // in no known order
  }
  unreachable("sema: a source of no known kind");
}

const OrderInfo* Checker::popBelowOrder(const Source& s) {
  auto* e = s.as<ExprSource>();
  auto* m = e ? e->expr->as<MethodCallExpr>() : nullptr;
  auto* q = m && m->container && m->container->decl ? m->container->decl->as<PqDecl>() : nullptr;
  return q ? q->order.order : nullptr;
}

Checker::Ordering Checker::namedOrdering(const Symbol* s) const {
  if (!s || !s->pipeline) return {};
  // A vector holds its pipeline's order until something else is pushed into it.
  if (s->kind == Symbol::Vector && changedVectors_.count(s->name)) return {};
  auto it = orderings_.find(s->pipeline);
  return it == orderings_.end() ? Ordering{} : it->second;
}

Checker::Ordering Checker::stageOrdering(const Stage& s, const Ordering& in) {
  switch (s.kind()) {
  case Stage::Filter:
  case Stage::Unique:
  case Stage::Take: return in;
  case Stage::Sort: return orderingOf(s.as<SortStage>()->order ? s.as<SortStage>()->order->order : nullptr);
  case Stage::Reduce: return orderingOf(s.as<ReduceStage>()->keyOrder);
  case Stage::Map: {
    auto& m = *s.as<MapStage>();
    return throughFunction(in, *m.body, {{m.varSymbol, in}});
  }
  case Stage::For: return {};
  case Stage::Named: {
    const auto& n = *s.as<NamedStage>();
    return n.id && info(*n.id).keepsOrder ? in : Ordering{};
  }
  }
  unreachable("sema: a stage of no known kind");
}

void Checker::findChangedVectors() {
  for (const StmtPtr& item : program_.items) noteChangedVectors(*item);
}

void Checker::sortIfNeeded(Pipeline& p, const OrderInfo* order, const std::string& forWhat) {
  auto it = orderings_.find(&p);
  if (it != orderings_.end() && satisfies(it->second, orderingOf(order))) return;
  auto sort = std::make_unique<SortStage>();
  sort->loc = p.loc;
  sort->order = OrderRef{};
  sort->order->kind = OrderRef::Named;
  sort->order->name.parts = {order->name};
  sort->order->loc = p.loc;
  sort->order->order = order;
  sort->insertedFor = forWhat;
  sort->elementType = p.elementType;
  p.stages.push_back(std::move(sort));
  orderings_[&p] = orderingOf(order);
}

const OrderInfo* Checker::keyListOrder(std::vector<OrderKeyInfo> keys, const Type* element, SourceLoc loc) {
  std::string name = "(";
  for (const OrderKeyInfo& k : keys) name += (name.size() > 1 ? ", " : "") + k.text + (k.descending ? " desc" : "");
  name += ")";
  OrderInfo& info = out_.orders.emplace_back();
  info.kind = OrderInfo::Keys;
  info.implicit = true;
  info.name = name;
  info.type = element;
  info.keys = std::move(keys);
  info.loc = loc;
  return &info;
}

} // namespace flow::sema
