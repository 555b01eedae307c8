#include "ast/clone.hpp"

#include <stdexcept>

namespace flow::ast {

// ----------------------------------------------------------------------------- pieces

QualifiedName Cloner::valueName(const QualifiedName& n) {
  QualifiedName out = n;
  out.loc = at(n.loc);
  if (out.parts.size() == 1) out.parts[0] = rename(out.parts[0]);
  return out;
}

QualifiedName Cloner::typeName(const QualifiedName& n) {
  QualifiedName out = n;
  out.loc = at(n.loc);
  if (out.parts.size() != 1) return out;
  std::string& name = out.parts[0];
  const size_t dot = name.find('.');
  if (dot == std::string::npos) {
    name = renameType(name);
  } else if (std::string module = moduleOf(name.substr(0, dot)); !module.empty()) {
    name = module + name.substr(dot); // `graph.Edge` as written, with the module's name
  } else {
    unknownModule(name.substr(0, dot), n.loc);
  }
  return out;
}

OrderRef Cloner::order(const OrderRef& o) {
  if (o.kind == OrderRef::Named)
    if (auto replaced = substituteOrder(o)) return *replaced;
  OrderRef out;
  out.kind = o.kind;
  out.loc = at(o.loc);
  if (o.kind == OrderRef::Named) out.name = typeName(o.name);
  return out;
}

OrderKey Cloner::orderKey(const OrderKey& k) { return {key(*k.key), k.descending, at(k.loc)}; }

ExprPtr Cloner::key(const Expr& e) {
  // A key names fields of the element (`src`, `pos.x`, `key[0]`), not values in scope:
  // nothing in it is renamed or substituted.
  const bool outer = inKey_;
  inKey_ = true;
  ExprPtr out = expr(e);
  inKey_ = outer;
  return out;
}

StringLiteral Cloner::literal(const StringLiteral& s) {
  StringLiteral out;
  out.raw = s.raw;
  out.loc = at(s.loc);
  for (const StringPart& part : s.parts) {
    StringPart p;
    p.text = part.text;
    p.expr = optExpr(part.expr);
    out.parts.push_back(std::move(p));
  }
  return out;
}

PathRef Cloner::path(const PathRef& p) {
  PathRef out;
  out.literal = literal(p.literal);
  out.param = p.param.empty() ? "" : rename(p.param);
  out.loc = at(p.loc);
  return out;
}

std::optional<Estimate> Cloner::estimate(const std::optional<Estimate>& e) {
  if (!e) return std::nullopt;
  Estimate out;
  out.value = e->value;
  out.text = e->text;
  out.loc = at(e->loc);
  if (e->expr) out.expr = std::shared_ptr<Expr>(expr(*e->expr));
  return out;
}

Lambda Cloner::lambda(const Lambda& l) {
  Lambda out;
  for (const Lambda::Param& p : l.params) out.params.push_back({rename(p.name), at(p.loc), nullptr});
  out.body = expr(*l.body);
  out.loc = at(l.loc);
  return out;
}

void Cloner::elementVar(ElementVar& out, const ElementVar& v) {
  out.var = rename(v.var);
  out.varLoc = at(v.varLoc);
}

JoinKey Cloner::joinKey(const JoinKey& k) {
  JoinKey out;
  for (const OrderKey& key : k.keys) out.keys.push_back(orderKey(key));
  if (k.order) out.order = order(*k.order);
  out.loc = at(k.loc);
  return out;
}

FnParam Cloner::fnParam(const FnParam& p) {
  FnParam out;
  out.kind = p.kind;
  out.name = p.name;
  out.loc = at(p.loc);
  out.type = optType(p.type);
  return out;
}

// ------------------------------------------------------------------------------ types

TypeRefPtr Cloner::type(const TypeRef& t) {
  if (auto* a = t.as<ArrayType>()) {
    auto out = fresh<ArrayType>(t.loc);
    out->element = type(*a->element);
    out->length = expr(*a->length);
    return out;
  }
  auto& n = *t.as<NamedType>();
  if (auto replaced = substituteType(n)) return replaced;
  auto out = fresh<NamedType>(t.loc);
  out->name = typeName(n.name);
  out->resolved = n.resolved; // a type parameter bound at a call stays bound
  return out;
}

// ------------------------------------------------------------------------ expressions

ExprPtr Cloner::expr(const Expr& e) {
  ExprPtr out;
  switch (e.kind()) {
  case Expr::IntLit: {
    auto x = fresh<IntLitExpr>(e.loc);
    x->value = e.as<IntLitExpr>()->value;
    x->text = e.as<IntLitExpr>()->text;
    out = std::move(x);
    break;
  }
  case Expr::FloatLit: {
    auto x = fresh<FloatLitExpr>(e.loc);
    x->value = e.as<FloatLitExpr>()->value;
    x->text = e.as<FloatLitExpr>()->text;
    out = std::move(x);
    break;
  }
  case Expr::SizeLit: {
    auto x = fresh<SizeLitExpr>(e.loc);
    x->bytes = e.as<SizeLitExpr>()->bytes;
    x->text = e.as<SizeLitExpr>()->text;
    out = std::move(x);
    break;
  }
  case Expr::StringLit: {
    auto x = fresh<StringLitExpr>(e.loc);
    x->literal = literal(e.as<StringLitExpr>()->literal);
    out = std::move(x);
    break;
  }
  case Expr::BoolLit: {
    auto x = fresh<BoolLitExpr>(e.loc);
    x->value = e.as<BoolLitExpr>()->value;
    out = std::move(x);
    break;
  }
  case Expr::Name: {
    auto& n = *e.as<NameExpr>();
    if (!inKey_)
      if (ExprPtr replaced = substitute(n)) return replaced;
    auto x = fresh<NameExpr>(e.loc);
    x->name = inKey_ ? n.name : valueName(n.name);
    x->name.loc = at(n.name.loc);
    out = std::move(x);
    break;
  }
  case Expr::Call: {
    auto& c = *e.as<CallExpr>();
    auto x = fresh<CallExpr>(e.loc);
    x->callee = valueName(c.callee);
    for (const ExprPtr& a : c.args) x->args.push_back(expr(*a));
    out = std::move(x);
    break;
  }
  case Expr::MethodCall: {
    auto& m = *e.as<MethodCallExpr>();
    auto* object = m.object->as<NameExpr>();
    if (object && object->name.parts.size() == 1) {
      if (std::string module = moduleOf(object->name.parts[0]); !module.empty()) {
        auto x = fresh<CallExpr>(e.loc); // graph.degrees(s): a function of a module
        x->callee.parts = {module + "." + m.method};
        x->callee.loc = at(e.loc);
        for (const ExprPtr& a : m.args) x->args.push_back(expr(*a));
        return x;
      }
    }
    auto x = fresh<MethodCallExpr>(e.loc);
    x->object = expr(*m.object);
    x->method = m.method;
    x->methodLoc = at(m.methodLoc);
    for (const ExprPtr& a : m.args) x->args.push_back(expr(*a));
    out = std::move(x);
    break;
  }
  case Expr::Field: {
    auto& f = *e.as<FieldExpr>();
    auto* object = f.object->as<NameExpr>();
    if (object && object->name.parts.size() == 1) {
      if (std::string module = moduleOf(object->name.parts[0]); !module.empty()) {
        auto x = fresh<NameExpr>(e.loc); // graph.INF: a constant of a module
        x->name.parts = {module + "." + f.field};
        x->name.loc = at(e.loc);
        return x;
      }
    }
    auto x = fresh<FieldExpr>(e.loc);
    x->object = expr(*f.object);
    x->field = f.field;
    x->fieldLoc = at(f.fieldLoc);
    out = std::move(x);
    break;
  }
  case Expr::Index: {
    auto x = fresh<IndexExpr>(e.loc);
    x->object = expr(*e.as<IndexExpr>()->object);
    x->index = expr(*e.as<IndexExpr>()->index);
    out = std::move(x);
    break;
  }
  case Expr::Unary: {
    auto x = fresh<UnaryExpr>(e.loc);
    x->op = e.as<UnaryExpr>()->op;
    x->operand = expr(*e.as<UnaryExpr>()->operand);
    out = std::move(x);
    break;
  }
  case Expr::Binary: {
    auto& b = *e.as<BinaryExpr>();
    auto x = fresh<BinaryExpr>(e.loc);
    x->op = b.op;
    x->lhs = expr(*b.lhs);
    x->rhs = expr(*b.rhs);
    out = std::move(x);
    break;
  }
  case Expr::Cast: {
    auto x = fresh<CastExpr>(e.loc);
    x->operand = expr(*e.as<CastExpr>()->operand);
    x->target = type(*e.as<CastExpr>()->target);
    out = std::move(x);
    break;
  }
  case Expr::RecordInit: {
    auto& r = *e.as<RecordInitExpr>();
    auto x = fresh<RecordInitExpr>(e.loc);
    x->recordName = typeName(r.recordName);
    for (const FieldInit& f : r.fields) x->fields.push_back({f.field, at(f.loc), expr(*f.value)});
    out = std::move(x);
    break;
  }
  case Expr::ArrayRepeat: {
    auto x = fresh<ArrayRepeatExpr>(e.loc);
    x->value = expr(*e.as<ArrayRepeatExpr>()->value);
    x->count = expr(*e.as<ArrayRepeatExpr>()->count);
    out = std::move(x);
    break;
  }
  case Expr::ArrayList: {
    auto x = fresh<ArrayListExpr>(e.loc);
    for (const ExprPtr& el : e.as<ArrayListExpr>()->elements) x->elements.push_back(expr(*el));
    out = std::move(x);
    break;
  }
  case Expr::PipelineArg: {
    auto x = fresh<PipelineArgExpr>(e.loc);
    x->pipeline = pipeline(*e.as<PipelineArgExpr>()->pipeline);
    out = std::move(x);
    break;
  }
  case Expr::IfElse: {
    auto& i = *e.as<IfExpr>();
    auto x = fresh<IfExpr>(e.loc);
    x->cond = expr(*i.cond);
    x->then = expr(*i.then);
    x->otherwise = optExpr(i.otherwise);
    out = std::move(x);
    break;
  }
  }
  return out;
}

// -------------------------------------------------------------------------- pipelines

PipelinePtr Cloner::pipeline(const Pipeline& p) {
  auto out = std::make_unique<Pipeline>();
  out->loc = at(p.loc);
  out->source = source(*p.source);
  for (const StagePtr& s : p.stages) out->stages.push_back(stage(*s));
  return out;
}

SourcePtr Cloner::source(const Source& s) {
  switch (s.kind()) {
  case Source::Generate: {
    auto x = fresh<GenerateSource>(s.loc);
    x->count = expr(*s.as<GenerateSource>()->count);
    x->body = expr(*s.as<GenerateSource>()->body);
    return x;
  }
  case Source::Range: {
    auto x = fresh<RangeSource>(s.loc);
    x->begin = expr(*s.as<RangeSource>()->begin);
    x->end = expr(*s.as<RangeSource>()->end);
    return x;
  }
  case Source::Read:
  case Source::ReadText: {
    auto& r = *s.as<ReadSource>();
    auto x = fresh<ReadSource>(s.loc);
    x->text = r.text;
    x->lines = r.lines;
    x->csv = r.csv;
    x->csvOptions = r.csvOptions;
    x->path = path(r.path);
    x->type = type(*r.type);
    x->estimate = estimate(r.estimate);
    return x;
  }
  case Source::Scan: {
    auto& r = *s.as<ScanSource>();
    auto x = fresh<ScanSource>(s.loc);
    NameExpr name; // a vector parameter is substituted here as in any other use
    name.loc = r.vectorLoc;
    name.name.parts = {r.vector};
    name.name.loc = r.vectorLoc;
    ExprPtr replaced = substitute(name);
    auto* n = replaced ? replaced->as<NameExpr>() : nullptr;
    x->vector = n ? n->name.str() : rename(r.vector);
    x->vectorLoc = at(r.vectorLoc);
    return x;
  }
  case Source::Merge: {
    auto& m = *s.as<MergeSource>();
    auto x = fresh<MergeSource>(s.loc);
    for (const PipelinePtr& p : m.inputs) x->inputs.push_back(pipeline(*p));
    x->order = order(m.order);
    return x;
  }
  case Source::Join: {
    auto& j = *s.as<JoinSource>();
    auto x = fresh<JoinSource>(s.loc);
    x->left = j.left;
    for (int side = 0; side < 2; ++side) {
      x->inputs[side] = pipeline(*j.inputs[side]);
      x->keys[side] = joinKey(j.keys[side]);
    }
    x->fn = lambda(j.fn);
    x->estimate = estimate(j.estimate);
    x->orderFree = j.orderFree;
    return x;
  }
  case Source::Zip: {
    auto& z = *s.as<ZipSource>();
    auto x = fresh<ZipSource>(s.loc);
    for (const PipelinePtr& p : z.inputs) x->inputs.push_back(pipeline(*p));
    x->fn = lambda(z.fn);
    return x;
  }
  case Source::Concat: {
    auto x = fresh<ConcatSource>(s.loc);
    for (const PipelinePtr& p : s.as<ConcatSource>()->inputs) x->inputs.push_back(pipeline(*p));
    return x;
  }
  case Source::ExprSrc: {
    auto x = fresh<ExprSource>(s.loc);
    x->expr = expr(*s.as<ExprSource>()->expr);
    return x;
  }
  }
  throw std::logic_error("Cloner: an unknown source");
}

StagePtr Cloner::stage(const Stage& s) {
  switch (s.kind()) {
  case Stage::Map: {
    auto& m = *s.as<MapStage>();
    auto x = fresh<MapStage>(s.loc);
    elementVar(*x, m);
    x->body = expr(*m.body);
    return x;
  }
  case Stage::Filter: {
    auto& f = *s.as<FilterStage>();
    auto x = fresh<FilterStage>(s.loc);
    elementVar(*x, f);
    x->cond = expr(*f.cond);
    x->estimate = estimate(f.estimate);
    return x;
  }
  case Stage::Sort: {
    auto& o = *s.as<SortStage>();
    auto x = fresh<SortStage>(s.loc);
    if (o.order) x->order = order(*o.order);
    x->insertedFor = o.insertedFor;
    return x;
  }
  case Stage::Unique: {
    auto& u = *s.as<UniqueStage>();
    auto x = fresh<UniqueStage>(s.loc);
    for (const ExprPtr& k : u.keys) x->keys.push_back(key(*k));
    x->estimate = estimate(u.estimate);
    return x;
  }
  case Stage::Take: {
    auto x = fresh<TakeStage>(s.loc);
    x->count = expr(*s.as<TakeStage>()->count);
    return x;
  }
  case Stage::Named: {
    auto& n = *s.as<NamedStage>();
    auto x = fresh<NamedStage>(s.loc);
    x->name = n.name;
    if (n.argument) x->argument = expr(*n.argument);
    return x;
  }
  case Stage::For: {
    auto& f = *s.as<ForStage>();
    auto x = fresh<ForStage>(s.loc);
    elementVar(*x, f);
    x->body = stmts(f.body);
    x->hasEnd = f.hasEnd;
    x->endLoc = at(f.endLoc);
    x->estimate = estimate(f.estimate);
    x->end = stmts(f.end);
    return x;
  }
  case Stage::Reduce: {
    auto& r = *s.as<ReduceStage>();
    auto x = fresh<ReduceStage>(s.loc);
    for (const ExprPtr& k : r.keys) x->keys.push_back(key(*k));
    x->fn = lambda(r.fn);
    x->estimate = estimate(r.estimate);
    return x;
  }
  }
  throw std::logic_error("Cloner: an unknown stage");
}

// ------------------------------------------------------------------------- statements

std::vector<StmtPtr> Cloner::stmts(const std::vector<StmtPtr>& body) {
  std::vector<StmtPtr> out;
  for (const StmtPtr& s : body) out.push_back(stmt(*s));
  return out;
}

StmtPtr Cloner::stmt(const Stmt& s) {
  switch (s.kind()) {
  case Stmt::Import: {
    auto x = fresh<ImportDecl>(s.loc);
    x->path = literal(s.as<ImportDecl>()->path);
    return x;
  }
  case Stmt::Param: {
    auto& p = *s.as<ParamDecl>();
    auto x = fresh<ParamDecl>(s.loc);
    x->name = rename(p.name);
    x->type = type(*p.type);
    x->init = expr(*p.init);
    return x;
  }
  case Stmt::Memory:
  case Stmt::BlockSize: {
    auto& d = *s.as<SizeDecl>();
    auto x = fresh<SizeDecl>(s.loc);
    x->isBlock = d.isBlock;
    x->bytes = d.bytes;
    x->text = d.text;
    x->sizeLoc = at(d.sizeLoc);
    return x;
  }
  case Stmt::Record: {
    auto& r = *s.as<RecordDecl>();
    auto x = fresh<RecordDecl>(s.loc);
    x->name = renameType(r.name);
    for (const FieldDecl& f : r.fields) x->fields.push_back({f.name, at(f.loc), type(*f.type)});
    return x;
  }
  case Stmt::Order: {
    auto& o = *s.as<OrderDecl>();
    auto x = fresh<OrderDecl>(s.loc);
    x->name = renameType(o.name);
    x->type = type(*o.type);
    for (const OrderKey& k : o.keys) x->keys.push_back(orderKey(k));
    if (o.cpp) {
      x->cpp = *o.cpp;
      x->cpp->loc = at(o.cpp->loc);
    }
    return x;
  }
  case Stmt::Fn: {
    auto& f = *s.as<FnDecl>();
    auto x = fresh<FnDecl>(s.loc);
    x->name = rename(f.name);
    for (const auto& [name, loc] : f.typeParams) x->typeParams.emplace_back(name, at(loc));
    for (const FnParam& p : f.params) x->params.push_back(fnParam(p));
    if (f.result) x->result = fnParam(*f.result);
    x->exprBody = optPipeline(f.exprBody);
    x->body = stmts(f.body);
    x->hasBlock = f.hasBlock;
    return x;
  }
  case Stmt::Use: {
    auto& u = *s.as<UseDecl>();
    auto x = fresh<UseDecl>(s.loc);
    x->module = u.module;
    x->path = literal(u.path);
    x->alias = u.alias;
    x->aliasLoc = at(u.aliasLoc);
    return x;
  }
  case Stmt::Stream: {
    auto& d = *s.as<StreamDecl>();
    auto x = fresh<StreamDecl>(s.loc);
    x->name = rename(d.name);
    x->type = optType(d.type);
    x->pipeline = pipeline(*d.pipeline);
    return x;
  }
  case Stmt::Vector: {
    auto& d = *s.as<VectorDecl>();
    auto x = fresh<VectorDecl>(s.loc);
    x->name = rename(d.name);
    x->type = optType(d.type);
    x->pipeline = optPipeline(d.pipeline);
    return x;
  }
  case Stmt::Pq: {
    auto& d = *s.as<PqDecl>();
    auto x = fresh<PqDecl>(s.loc);
    x->name = rename(d.name);
    x->type = type(*d.type);
    x->order = order(d.order);
    return x;
  }
  case Stmt::Let:
  case Stmt::Var: {
    auto& l = *s.as<LetStmt>();
    auto x = fresh<LetStmt>(s.loc);
    x->isVar = l.isVar;
    x->name = rename(l.name);
    x->type = optType(l.type);
    x->init = expr(*l.init);
    return x;
  }
  case Stmt::If: {
    auto& i = *s.as<IfStmt>();
    auto x = fresh<IfStmt>(s.loc);
    x->cond = expr(*i.cond);
    x->then = stmts(i.then);
    if (i.elseBranch) x->elseBranch = stmt(*i.elseBranch);
    return x;
  }
  case Stmt::While: {
    auto& w = *s.as<WhileStmt>();
    auto x = fresh<WhileStmt>(s.loc);
    x->cond = expr(*w.cond);
    x->rounds = estimate(w.rounds);
    x->body = stmts(w.body);
    return x;
  }
  case Stmt::ForIn: {
    auto& f = *s.as<ForInStmt>();
    auto x = fresh<ForInStmt>(s.loc);
    elementVar(*x, f);
    x->pipeline = pipeline(*f.pipeline);
    x->body = stmts(f.body);
    return x;
  }
  case Stmt::Break:
  case Stmt::Continue: {
    auto x = fresh<JumpStmt>(s.loc);
    x->isContinue = s.as<JumpStmt>()->isContinue;
    return x;
  }
  case Stmt::Emit: {
    auto x = fresh<EmitStmt>(s.loc);
    x->value = expr(*s.as<EmitStmt>()->value);
    return x;
  }
  case Stmt::Print: {
    auto x = fresh<PrintStmt>(s.loc);
    x->message = literal(s.as<PrintStmt>()->message);
    return x;
  }
  case Stmt::Write:
  case Stmt::WriteText: {
    auto& w = *s.as<WriteStmt>();
    auto x = fresh<WriteStmt>(s.loc);
    x->text = w.text;
    x->lines = w.lines;
    x->csv = w.csv;
    x->csvOptions = w.csvOptions;
    x->pipeline = pipeline(*w.pipeline);
    x->path = path(w.path);
    return x;
  }
  case Stmt::Assign: {
    auto& a = *s.as<AssignStmt>();
    auto x = fresh<AssignStmt>(s.loc);
    x->op = a.op;
    x->target = expr(*a.target);
    x->value = optExpr(a.value);
    x->pipeline = optPipeline(a.pipeline);
    return x;
  }
  case Stmt::Evaluate: {
    auto x = fresh<ExprStmt>(s.loc);
    x->expr = expr(*s.as<ExprStmt>()->expr);
    return x;
  }
  case Stmt::Block: {
    auto x = fresh<BlockStmt>(s.loc);
    x->body = stmts(s.as<BlockStmt>()->body);
    return x;
  }
  case Stmt::Array: {
    auto& a = *s.as<ArrayDecl>();
    auto x = fresh<ArrayDecl>(s.loc);
    x->name = rename(a.name);
    x->element = type(*a.element);
    x->length = expr(*a.length);
    x->init = optExpr(a.init);
    return x;
  }
  case Stmt::Return: {
    auto x = fresh<ReturnStmt>(s.loc);
    x->value = optPipeline(s.as<ReturnStmt>()->value);
    return x;
  }
  }
  throw std::logic_error("Cloner: an unknown statement");
}

} // namespace flow::ast
