#include "ast/visit.hpp"

#include <concepts>
#include <type_traits>

namespace flow::ast {

// The child list is written once, as templates over a node type `N` that is either
// const (for forEachChild) or not (for forEachChildSlot). `slot` is called with each
// child's owning pointer (`const ExprPtr&` or `ExprPtr&`, …), never with a null one.
// Each switch names every kind and has no default, so a kind left out does not compile.
namespace {

template <class N, class Family> concept Of = std::same_as<std::remove_const_t<N>, Family>;

/// `n` as the node type T it is known to be, as const as `n`.
template <class T, class N> auto& cast(N& n) { return *n.template as<T>(); }

template <class P> concept Owning = requires(P& p) {
  p.get();
  p.reset();
};

template <class P, class S> requires Owning<std::remove_const_t<P>> void each(P& ptr, const S& slot) {
  if (ptr) slot(ptr);
}
template <class T, class S> void each(std::vector<T>& items, const S& slot) {
  for (T& item : items) each(item, slot);
}
template <class T, class S> void each(const std::vector<T>& items, const S& slot) {
  for (const T& item : items) each(item, slot);
}
template <class L, class S> requires Of<L, StringLiteral> void each(L& literal, const S& slot) {
  for (auto& part : literal.parts) each(part.expr, slot);
}
template <class K, class S> requires Of<K, OrderKey> void each(K& key, const S& slot) { each(key.key, slot); }

template <class N, class S> requires Of<N, Expr> void children(N& e, const S& slot) {
  switch (e.kind()) {
  case Expr::IntLit:
  case Expr::FloatLit:
  case Expr::SizeLit:
  case Expr::BoolLit:
  case Expr::Name: return;
  case Expr::StringLit: return each(cast<StringLitExpr>(e).literal, slot);
  case Expr::Call:
    each(cast<CallExpr>(e).args, slot);
    return each(cast<CallExpr>(e).inlined, slot);
  case Expr::MethodCall:
    each(cast<MethodCallExpr>(e).object, slot);
    return each(cast<MethodCallExpr>(e).args, slot);
  case Expr::Field: return each(cast<FieldExpr>(e).object, slot);
  case Expr::Index:
    each(cast<IndexExpr>(e).object, slot);
    return each(cast<IndexExpr>(e).index, slot);
  case Expr::Unary: return each(cast<UnaryExpr>(e).operand, slot);
  case Expr::Binary:
    each(cast<BinaryExpr>(e).lhs, slot);
    return each(cast<BinaryExpr>(e).rhs, slot);
  case Expr::Cast:
    each(cast<CastExpr>(e).operand, slot);
    return each(cast<CastExpr>(e).target, slot);
  case Expr::RecordInit:
    for (auto& f : cast<RecordInitExpr>(e).fields) each(f.value, slot);
    return;
  case Expr::ArrayRepeat:
    each(cast<ArrayRepeatExpr>(e).value, slot);
    return each(cast<ArrayRepeatExpr>(e).count, slot);
  case Expr::ArrayList: return each(cast<ArrayListExpr>(e).elements, slot);
  case Expr::PipelineArg: return each(cast<PipelineArgExpr>(e).pipeline, slot);
  case Expr::IfElse:
    each(cast<IfExpr>(e).cond, slot);
    each(cast<IfExpr>(e).then, slot);
    return each(cast<IfExpr>(e).otherwise, slot);
  }
}

template <class N, class S> requires Of<N, Pipeline> void children(N& p, const S& slot) {
  each(p.source, slot);
  each(p.stages, slot);
}

template <class N, class S> requires Of<N, Source> void children(N& s, const S& slot) {
  switch (s.kind()) {
  case Source::Generate:
    each(cast<GenerateSource>(s).count, slot);
    return each(cast<GenerateSource>(s).body, slot);
  case Source::Range:
    each(cast<RangeSource>(s).begin, slot);
    return each(cast<RangeSource>(s).end, slot);
  case Source::Read:
  case Source::ReadText: return each(cast<ReadSource>(s).type, slot);
  case Source::Scan: return;
  case Source::Merge: return each(cast<MergeSource>(s).inputs, slot);
  case Source::Join: {
    auto& j = cast<JoinSource>(s);
    for (int side = 0; side < 2; ++side) {
      each(j.inputs[side], slot);
      each(j.keys[side].keys, slot);
    }
    return each(j.fn.body, slot);
  }
  case Source::Zip:
    each(cast<ZipSource>(s).inputs, slot);
    return each(cast<ZipSource>(s).fn.body, slot);
  case Source::Concat: return each(cast<ConcatSource>(s).inputs, slot);
  case Source::ExprSrc: return each(cast<ExprSource>(s).expr, slot);
  }
}

template <class N, class S> requires Of<N, Stage> void children(N& s, const S& slot) {
  switch (s.kind()) {
  case Stage::Map: return each(cast<MapStage>(s).body, slot);
  case Stage::Filter: return each(cast<FilterStage>(s).cond, slot);
  case Stage::Sort: return;
  case Stage::Unique: return each(cast<UniqueStage>(s).keys, slot);
  case Stage::Take: return each(cast<TakeStage>(s).count, slot);
  case Stage::For:
    each(cast<ForStage>(s).body, slot);
    return each(cast<ForStage>(s).end, slot);
  case Stage::Reduce:
    each(cast<ReduceStage>(s).keys, slot);
    return each(cast<ReduceStage>(s).fn.body, slot);
  case Stage::Named: return each(cast<NamedStage>(s).argument, slot);
  }
}

template <class N, class S> requires Of<N, TypeRef> void children(N& t, const S& slot) {
  switch (t.kind()) {
  case TypeRef::Named: return;
  case TypeRef::Array:
    each(cast<ArrayType>(t).element, slot);
    return each(cast<ArrayType>(t).length, slot);
  }
}

template <class N, class S> requires Of<N, Stmt> void children(N& s, const S& slot) {
  switch (s.kind()) {
  case Stmt::Import:
  case Stmt::Use:
  // A function's body is a template: what runs (and is checked, planned and generated)
  // is its expansion at each call, which stands in the caller's statements.
  case Stmt::Fn:
  case Stmt::Memory:
  case Stmt::BlockSize:
  case Stmt::Break:
  case Stmt::Continue: return;
  case Stmt::Param:
    each(cast<ParamDecl>(s).type, slot);
    return each(cast<ParamDecl>(s).init, slot);
  case Stmt::Record:
    for (auto& f : cast<RecordDecl>(s).fields) each(f.type, slot);
    return;
  case Stmt::Order:
    each(cast<OrderDecl>(s).type, slot);
    return each(cast<OrderDecl>(s).keys, slot);
  case Stmt::Stream:
    each(cast<StreamDecl>(s).type, slot);
    return each(cast<StreamDecl>(s).pipeline, slot);
  case Stmt::Vector:
    each(cast<VectorDecl>(s).type, slot);
    return each(cast<VectorDecl>(s).pipeline, slot);
  case Stmt::Pq: return each(cast<PqDecl>(s).type, slot);
  case Stmt::Let:
  case Stmt::Var:
    each(cast<LetStmt>(s).type, slot);
    return each(cast<LetStmt>(s).init, slot);
  case Stmt::If:
    each(cast<IfStmt>(s).cond, slot);
    each(cast<IfStmt>(s).then, slot);
    return each(cast<IfStmt>(s).elseBranch, slot);
  case Stmt::While:
    each(cast<WhileStmt>(s).cond, slot);
    return each(cast<WhileStmt>(s).body, slot);
  case Stmt::ForIn:
    each(cast<ForInStmt>(s).pipeline, slot);
    return each(cast<ForInStmt>(s).body, slot);
  case Stmt::Emit: return each(cast<EmitStmt>(s).value, slot);
  case Stmt::Print: return each(cast<PrintStmt>(s).message, slot);
  case Stmt::Write:
  case Stmt::WriteText:
    each(cast<WriteStmt>(s).pipeline, slot);
    return each(cast<WriteStmt>(s).path.literal, slot);
  case Stmt::Assign:
    each(cast<AssignStmt>(s).target, slot);
    each(cast<AssignStmt>(s).value, slot);
    return each(cast<AssignStmt>(s).pipeline, slot);
  case Stmt::Evaluate: return each(cast<ExprStmt>(s).expr, slot);
  case Stmt::Block: return each(cast<BlockStmt>(s).body, slot);
  case Stmt::Array:
    each(cast<ArrayDecl>(s).element, slot);
    each(cast<ArrayDecl>(s).length, slot);
    return each(cast<ArrayDecl>(s).init, slot);
  case Stmt::Return: return each(cast<ReturnStmt>(s).value, slot);
  }
}

/// What forEachChild hands out: the child itself.
struct ReadChild {
  const ChildFn& fn;
#define FLOW_READ_CHILD(T, name)                                                                                       \
  void operator()(const std::unique_ptr<T>& p) const { fn(Child{.name = p.get()}); }
  FLOW_AST_FAMILIES(FLOW_READ_CHILD)
#undef FLOW_READ_CHILD
};

/// What forEachChildSlot hands out: the pointer that owns the child.
struct SlotOfChild {
  const ChildSlotFn& fn;
#define FLOW_SLOT_OF_CHILD(T, name)                                                                                    \
  void operator()(std::unique_ptr<T>& p) const { fn(ChildSlot{.name = &p}); }
  FLOW_AST_FAMILIES(FLOW_SLOT_OF_CHILD)
#undef FLOW_SLOT_OF_CHILD
};

} // namespace

#define FLOW_FOR_EACH_CHILD(T, name)                                                                                   \
  void forEachChild(const T& node, const ChildFn& fn) { children(node, ReadChild{fn}); }                               \
  void forEachChildSlot(T& node, const ChildSlotFn& fn) { children(node, SlotOfChild{fn}); }
FLOW_AST_FAMILIES(FLOW_FOR_EACH_CHILD)
#undef FLOW_FOR_EACH_CHILD

void Visitor::walk(const Child& c) {
#define FLOW_WALK_CHILD(T, name)                                                                                       \
  if (c.name) return walk(*c.name);
  FLOW_AST_FAMILIES(FLOW_WALK_CHILD)
#undef FLOW_WALK_CHILD
}

void MutatingVisitor::walk(const ChildSlot& c) {
#define FLOW_WALK_SLOT(T, name)                                                                                        \
  if (c.name) return walk(*c.name);
  FLOW_AST_FAMILIES(FLOW_WALK_SLOT)
#undef FLOW_WALK_SLOT
}

namespace {
struct AggregateFinder : Visitor {
  std::vector<const CallExpr*> found;
  bool visit(const Expr& x) override {
    auto* c = x.as<CallExpr>();
    if (c && c->aggregate) found.push_back(c);
    return !(c && c->aggregate);
  }
  bool visit(const Stage& s) override { return s.kind() != Stage::For; }
};
template <class T> std::vector<const CallExpr*> findAggregates(const T& node) {
  AggregateFinder finder;
  finder.walk(node);
  return finder.found;
}
} // namespace

std::vector<const CallExpr*> aggregatesBefore(const Expr& e) { return findAggregates(e); }

bool drawsRand(const Expr& e) {
  struct Finder : Visitor {
    bool found = false;
    bool visit(const Expr& x) override {
      auto* c = x.as<CallExpr>();
      found = found || (c && c->builtin && *c->builtin == Builtin::Rand);
      return !found;
    }
  } finder;
  finder.walk(e);
  return finder.found;
}
std::vector<const CallExpr*> aggregatesBefore(const Pipeline& p) { return findAggregates(p); }

} // namespace flow::ast
