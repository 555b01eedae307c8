#include "ast/visit.hpp"

namespace flow::ast {

namespace {
void each(const ExprPtr& e, const ChildFn& fn) {
  if (e) fn(Child{.expr = e.get()});
}
void each(const StmtPtr& s, const ChildFn& fn) {
  if (s) fn(Child{.stmt = s.get()});
}
void each(const PipelinePtr& p, const ChildFn& fn) {
  if (p) fn(Child{.pipeline = p.get()});
}
void each(const TypeRefPtr& t, const ChildFn& fn) {
  if (t) fn(Child{.type = t.get()});
}
template <class T> void each(const std::vector<T>& items, const ChildFn& fn) {
  for (const T& item : items) each(item, fn);
}
void each(const StringLiteral& s, const ChildFn& fn) {
  for (const StringPart& part : s.parts) each(part.expr, fn);
}
} // namespace

void forEachChild(const Expr& e, const ChildFn& fn) {
  switch (e.kind()) {
  case Expr::IntLit:
  case Expr::FloatLit:
  case Expr::SizeLit:
  case Expr::BoolLit:
  case Expr::Name: return;
  case Expr::StringLit: return each(e.as<StringLitExpr>()->literal, fn);
  case Expr::Call:
    each(e.as<CallExpr>()->args, fn);
    return each(e.as<CallExpr>()->inlined, fn);
  case Expr::MethodCall:
    each(e.as<MethodCallExpr>()->object, fn);
    return each(e.as<MethodCallExpr>()->args, fn);
  case Expr::Field: return each(e.as<FieldExpr>()->object, fn);
  case Expr::Index:
    each(e.as<IndexExpr>()->object, fn);
    return each(e.as<IndexExpr>()->index, fn);
  case Expr::Unary: return each(e.as<UnaryExpr>()->operand, fn);
  case Expr::Binary:
    each(e.as<BinaryExpr>()->lhs, fn);
    return each(e.as<BinaryExpr>()->rhs, fn);
  case Expr::Cast:
    each(e.as<CastExpr>()->operand, fn);
    return each(e.as<CastExpr>()->target, fn);
  case Expr::RecordInit:
    for (const FieldInit& f : e.as<RecordInitExpr>()->fields) each(f.value, fn);
    return;
  case Expr::ArrayRepeat:
    each(e.as<ArrayRepeatExpr>()->value, fn);
    return each(e.as<ArrayRepeatExpr>()->count, fn);
  case Expr::ArrayList: return each(e.as<ArrayListExpr>()->elements, fn);
  case Expr::PipelineArg: return each(e.as<PipelineArgExpr>()->pipeline, fn);
  case Expr::IfElse:
    each(e.as<IfExpr>()->cond, fn);
    each(e.as<IfExpr>()->then, fn);
    return each(e.as<IfExpr>()->otherwise, fn);
  }
}

void forEachChild(const Pipeline& p, const ChildFn& fn) {
  if (p.source) fn(Child{.source = p.source.get()});
  for (const StagePtr& s : p.stages) fn(Child{.stage = s.get()});
}

void forEachChild(const Source& s, const ChildFn& fn) {
  switch (s.kind()) {
  case Source::Generate:
    each(s.as<GenerateSource>()->count, fn);
    return each(s.as<GenerateSource>()->body, fn);
  case Source::Range:
    each(s.as<RangeSource>()->begin, fn);
    return each(s.as<RangeSource>()->end, fn);
  case Source::Read:
  case Source::ReadText: return each(s.as<ReadSource>()->type, fn);
  case Source::Scan: return;
  case Source::Merge: return each(s.as<MergeSource>()->inputs, fn);
  case Source::Join: {
    auto& j = *s.as<JoinSource>();
    for (int side = 0; side < 2; ++side) {
      each(j.inputs[side], fn);
      for (const OrderKey& k : j.keys[side].keys) each(k.key, fn);
    }
    return each(j.fn.body, fn);
  }
  case Source::Zip:
    each(s.as<ZipSource>()->inputs, fn);
    return each(s.as<ZipSource>()->fn.body, fn);
  case Source::Concat: return each(s.as<ConcatSource>()->inputs, fn);
  case Source::ExprSrc: return each(s.as<ExprSource>()->expr, fn);
  }
}

void forEachChild(const Stage& s, const ChildFn& fn) {
  switch (s.kind()) {
  case Stage::Map: return each(s.as<MapStage>()->body, fn);
  case Stage::Filter: return each(s.as<FilterStage>()->cond, fn);
  case Stage::Sort: return;
  case Stage::Unique: return each(s.as<UniqueStage>()->keys, fn);
  case Stage::Take: return each(s.as<TakeStage>()->count, fn);
  case Stage::For:
    each(s.as<ForStage>()->body, fn);
    return each(s.as<ForStage>()->end, fn);
  case Stage::Reduce:
    each(s.as<ReduceStage>()->keys, fn);
    return each(s.as<ReduceStage>()->fn.body, fn);
  }
}

void forEachChild(const TypeRef& t, const ChildFn& fn) {
  if (auto* a = t.as<ArrayType>()) {
    each(a->element, fn);
    each(a->length, fn);
  }
}

void forEachChild(const Stmt& s, const ChildFn& fn) {
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
    each(s.as<ParamDecl>()->type, fn);
    return each(s.as<ParamDecl>()->init, fn);
  case Stmt::Record:
    for (const FieldDecl& f : s.as<RecordDecl>()->fields) each(f.type, fn);
    return;
  case Stmt::Order:
    each(s.as<OrderDecl>()->type, fn);
    for (const OrderKey& k : s.as<OrderDecl>()->keys) each(k.key, fn);
    return;
  case Stmt::Stream:
    each(s.as<StreamDecl>()->type, fn);
    return each(s.as<StreamDecl>()->pipeline, fn);
  case Stmt::Vector:
    each(s.as<VectorDecl>()->type, fn);
    return each(s.as<VectorDecl>()->pipeline, fn);
  case Stmt::Pq: return each(s.as<PqDecl>()->type, fn);
  case Stmt::Let:
  case Stmt::Var:
    each(s.as<LetStmt>()->type, fn);
    return each(s.as<LetStmt>()->init, fn);
  case Stmt::If:
    each(s.as<IfStmt>()->cond, fn);
    each(s.as<IfStmt>()->then, fn);
    return each(s.as<IfStmt>()->elseBranch, fn);
  case Stmt::While:
    each(s.as<WhileStmt>()->cond, fn);
    return each(s.as<WhileStmt>()->body, fn);
  case Stmt::ForIn:
    each(s.as<ForInStmt>()->pipeline, fn);
    return each(s.as<ForInStmt>()->body, fn);
  case Stmt::Emit: return each(s.as<EmitStmt>()->value, fn);
  case Stmt::Print: return each(s.as<PrintStmt>()->message, fn);
  case Stmt::Write:
  case Stmt::WriteText:
    each(s.as<WriteStmt>()->pipeline, fn);
    return each(s.as<WriteStmt>()->path.literal, fn);
  case Stmt::Assign:
    each(s.as<AssignStmt>()->target, fn);
    each(s.as<AssignStmt>()->value, fn);
    return each(s.as<AssignStmt>()->pipeline, fn);
  case Stmt::Evaluate: return each(s.as<ExprStmt>()->expr, fn);
  case Stmt::Block: return each(s.as<BlockStmt>()->body, fn);
  case Stmt::Array:
    each(s.as<ArrayDecl>()->element, fn);
    each(s.as<ArrayDecl>()->length, fn);
    return each(s.as<ArrayDecl>()->init, fn);
  case Stmt::Return: return each(s.as<ReturnStmt>()->value, fn);
  }
}

void Visitor::walk(const Child& c) {
  if (c.expr) walk(*c.expr);
  else if (c.stmt) walk(*c.stmt);
  else if (c.pipeline) walk(*c.pipeline);
  else if (c.source) walk(*c.source);
  else if (c.stage) walk(*c.stage);
  else if (c.type) walk(*c.type);
}

} // namespace flow::ast
