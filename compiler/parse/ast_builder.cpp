#include "parse/ast_builder.hpp"

#include "ast/unreachable.hpp"

#include "parse/literals.hpp"
#include "parse/parser.hpp"

#include "flow/edit_distance.hpp"

#include <set>

namespace flow::parse {

using namespace flow::ast;
using P = grammar::FlowParser;

namespace {

template <class T> std::unique_ptr<T> make(SourceLoc loc) {
  auto node = std::make_unique<T>();
  node->loc = loc;
  return node;
}

} // namespace

AstBuilder::AstBuilder(const SourceFile& file, DiagnosticEngine& diags, LocationMap map)
    : file_(file), diags_(diags), map_(map) {}

SourceLoc AstBuilder::loc(antlr4::ParserRuleContext* ctx) const { return map_.start(ctx->getStart()); }
SourceLoc AstBuilder::loc(antlr4::tree::TerminalNode* node) const { return map_.start(node->getSymbol()); }
SourceLoc AstBuilder::loc(antlr4::Token* token) const { return map_.start(token); }

void AstBuilder::elementVar(ElementVar& v, antlr4::tree::TerminalNode* name) const {
  v.var = name->getText();
  v.varLoc = loc(name);
}

void AstBuilder::error(SourceLoc at, std::string message) { diags_.error(&file_, at, std::move(message)); }

std::unique_ptr<Program> AstBuilder::program(P::ProgramContext* ctx) {
  auto program = std::make_unique<Program>();
  program->file = &file_;
  for (P::ItemContext* item : ctx->item()) {
    if (item->declaration()) program->items.push_back(declaration(item->declaration()));
    else program->items.push_back(statement(item->statement()));
  }
  return program;
}

// ----------------------------------------------------------------------- declarations

StmtPtr AstBuilder::declaration(P::DeclarationContext* ctx) {
  if (auto* c = dynamic_cast<P::ImportDeclContext*>(ctx)) {
    auto d = make<ImportDecl>(loc(ctx));
    d->path = stringLiteral(c->STRING());
    return d;
  }
  if (auto* c = dynamic_cast<P::ParamDeclContext*>(ctx)) {
    auto d = make<ParamDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    d->type = type(c->type());
    d->init = expr(c->expr());
    return d;
  }
  if (auto* c = dynamic_cast<P::MemoryDeclContext*>(ctx)) return sizeDecl(loc(ctx), c->size(), false);
  if (auto* c = dynamic_cast<P::BlockDeclContext*>(ctx)) return sizeDecl(loc(ctx), c->size(), true);
  if (auto* c = dynamic_cast<P::RecordDeclContext*>(ctx)) {
    auto d = make<RecordDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    for (P::FieldDeclContext* f : c->fieldDecl())
      d->fields.push_back({f->fieldName()->getText(), loc(f), type(f->type())});
    return d;
  }
  if (auto* c = dynamic_cast<P::OrderDeclContext*>(ctx)) {
    auto d = make<OrderDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    d->type = type(c->type());
    if (auto* keys = dynamic_cast<P::KeyOrderContext*>(c->orderSpec())) {
      for (P::OrderKeyContext* k : keys->orderKey())
        d->keys.push_back({expr(k->expr()), k->direction && k->direction->getText() == "desc", loc(k)});
    } else {
      d->cpp = qualifiedName(dynamic_cast<P::CppOrderContext*>(c->orderSpec())->qualifiedName());
    }
    return d;
  }
  if (auto* c = dynamic_cast<P::FnDeclContext*>(ctx)) {
    auto d = make<FnDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    if (c->typeParams())
      for (auto* t : c->typeParams()->IDENT()) d->typeParams.emplace_back(t->getText(), loc(t));
    for (P::FnParamContext* p : c->fnParam()) {
      FnParam param = fnType(p->fnType());
      param.name = p->IDENT()->getText();
      param.loc = loc(p);
      d->params.push_back(std::move(param));
    }
    if (c->fnType()) d->result = fnType(c->fnType());
    if (c->block()) {
      d->hasBlock = true;
      d->body = block(c->block());
    } else {
      d->exprBody = pipeline(c->pipeline());
    }
    return d;
  }
  if (auto* c = dynamic_cast<P::UseDeclContext*>(ctx)) {
    auto d = make<UseDecl>(loc(ctx));
    if (c->modulePath()) {
      d->module = c->modulePath()->getText();
      d->alias = c->modulePath()->IDENT().back()->getText();
      d->aliasLoc = loc(c->modulePath()->IDENT().back());
    } else {
      d->path = stringLiteral(c->STRING());
      // Without `as`, a file's declarations go by the file's name: "lib/my_graph.flow" → my_graph.
      std::string file = d->path.isInterpolated() ? "" : d->path.text();
      file = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
      d->alias = file.substr(0, file.find('.'));
      d->aliasLoc = d->path.loc;
    }
    if (c->IDENT()) {
      d->alias = c->IDENT()->getText();
      d->aliasLoc = loc(c->IDENT());
    }
    return d;
  }
  unreachable("AstBuilder: a declaration of no known alternative");
}

FnParam AstBuilder::fnType(P::FnTypeContext* ctx) {
  FnParam p;
  p.loc = loc(ctx);
  p.type = type(ctx->type());
  if (ctx->kind) {
    const std::string k = ctx->kind->getText();
    p.kind = k == "stream" ? FnParam::Stream
             : k == "vector" ? FnParam::Vector
             : k == "array"  ? FnParam::Array
             : k == "pq"     ? FnParam::Queue
                             : FnParam::Order;
  }
  return p;
}

StmtPtr AstBuilder::sizeDecl(SourceLoc at, P::SizeContext* ctx, bool isBlock) {
  auto d = make<SizeDecl>(at);
  d->isBlock = isBlock;
  d->sizeLoc = loc(ctx);
  d->text = ctx->getText();
  std::string number, unit, message;
  if (auto* s = dynamic_cast<P::SizeLiteralContext*>(ctx)) {
    splitSize(s->SIZE()->getText(), number, unit);
  } else {
    auto* w = dynamic_cast<P::SizeWithWordContext*>(ctx);
    number = w->number()->getText();
    unit = w->IDENT() ? w->IDENT()->getText() : "B";
    if (w->IDENT()) d->text = number + " " + unit;
  }
  if (auto bytes = parseSize(number, unit, message)) d->bytes = *bytes;
  else error(d->sizeLoc, message);
  return d;
}

// ------------------------------------------------------------------------------ types

TypeRefPtr AstBuilder::type(P::TypeContext* ctx) {
  if (auto* a = dynamic_cast<P::ArrayTypeContext*>(ctx)) {
    auto t = make<ArrayType>(loc(ctx));
    t->element = type(a->type());
    t->length = expr(a->expr());
    return t;
  }
  auto t = make<NamedType>(loc(ctx));
  if (auto* m = dynamic_cast<P::ModuleTypeContext*>(ctx)) t->name = moduleName(m->name(0), m->name(1));
  else t->name = qualifiedName(dynamic_cast<P::NamedTypeContext*>(ctx)->qualifiedName());
  return t;
}

PathRef AstBuilder::pathRef(P::PathRefContext* ctx) {
  PathRef p;
  if (!ctx) return p;
  p.loc = loc(ctx);
  if (ctx->STRING()) p.literal = stringLiteral(ctx->STRING());
  else if (ctx->name()) p.param = ctx->name()->getText();
  return p;
}

QualifiedName AstBuilder::moduleName(P::NameContext* module, P::NameContext* member) {
  // `graph.Edge` is one name, as its module declares it (sema knows "graph.Edge").
  QualifiedName name;
  name.loc = loc(module);
  name.parts.push_back(module->getText() + "." + member->getText());
  return name;
}

QualifiedName AstBuilder::qualifiedName(P::QualifiedNameContext* ctx) {
  QualifiedName name;
  name.loc = loc(ctx);
  for (P::NameContext* part : ctx->name()) name.parts.push_back(part->getText());
  return name;
}

OrderRef AstBuilder::orderRef(P::OrderRefContext* ctx) {
  OrderRef order;
  order.loc = loc(ctx);
  if (dynamic_cast<P::AscOrderContext*>(ctx)) order.kind = OrderRef::Asc;
  else if (dynamic_cast<P::DescOrderContext*>(ctx)) order.kind = OrderRef::Desc;
  else if (auto* m = dynamic_cast<P::ModuleOrderContext*>(ctx)) {
    order.kind = OrderRef::Named;
    order.name = moduleName(m->name(0), m->name(1));
  } else {
    order.kind = OrderRef::Named;
    order.name = qualifiedName(dynamic_cast<P::NamedOrderContext*>(ctx)->qualifiedName());
  }
  return order;
}

// -------------------------------------------------------------------------- pipelines

PipelinePtr AstBuilder::pipeline(P::PipelineContext* ctx) {
  auto p = std::make_unique<Pipeline>();
  p->loc = loc(ctx);
  p->source = source(ctx->source());
  for (P::StageContext* s : ctx->stage()) p->stages.push_back(stage(s));
  return p;
}

std::optional<Estimate> AstBuilder::estimate(P::EstimateContext* ctx) {
  if (!ctx) return std::nullopt;
  Estimate e;
  P::ExprContext* x = ctx->expr();
  e.loc = loc(x);
  e.text = x->start->getInputStream()->getText(antlr4::misc::Interval(x->start->getStartIndex(), x->stop->getStopIndex()));
  e.expr = expr(x);
  // A plain number has its value now; an expression over params gets it in sema.
  if (auto* i = e.expr->as<IntLitExpr>()) e.value = static_cast<double>(i->value);
  else if (auto* f = e.expr->as<FloatLitExpr>()) e.value = f->value;
  return e;
}

SourcePtr AstBuilder::source(P::SourceContext* ctx) {
  if (auto* c = dynamic_cast<P::GenerateSourceContext*>(ctx)) {
    auto s = make<GenerateSource>(loc(ctx));
    s->count = expr(c->expr(0));
    s->body = expr(c->expr(1));
    return s;
  }
  if (auto* c = dynamic_cast<P::RangeSourceContext*>(ctx)) {
    auto s = make<RangeSource>(loc(ctx));
    s->begin = expr(c->expr(0));
    s->end = expr(c->expr(1));
    return s;
  }
  if (auto* c = dynamic_cast<P::ReadSourceContext*>(ctx)) {
    auto s = make<ReadSource>(loc(ctx));
    s->path = pathRef(c->pathRef());
    s->type = type(c->type());
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::ReadTextSourceContext*>(ctx)) {
    auto s = make<ReadSource>(loc(ctx));
    s->text = true;
    s->path = pathRef(c->pathRef());
    s->type = type(c->type());
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::ReadLinesSourceContext*>(ctx)) {
    auto s = make<ReadSource>(loc(ctx));
    s->text = s->lines = true;
    s->path = pathRef(c->pathRef());
    auto str = std::make_unique<NamedType>();
    str->loc = loc(ctx);
    str->name.parts = {"str"};
    str->name.loc = loc(ctx);
    s->type = std::move(str);
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::ReadCsvSourceContext*>(ctx)) {
    auto s = make<ReadSource>(loc(ctx));
    s->text = s->csv = true;
    s->path = pathRef(c->pathRef());
    s->csvOptions = csvOptions(c->csvOption());
    s->type = type(c->type());
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::ScanSourceContext*>(ctx)) {
    auto s = make<ScanSource>(loc(ctx));
    s->vector = c->IDENT()->getText();
    s->vectorLoc = loc(c->IDENT());
    return s;
  }
  if (auto* c = dynamic_cast<P::MergeSourceContext*>(ctx)) {
    auto s = make<MergeSource>(loc(ctx));
    for (P::PipelineContext* input : c->pipeline()) s->inputs.push_back(pipeline(input));
    s->order = orderRef(c->orderRef());
    return s;
  }
  if (auto* c = dynamic_cast<P::JoinSourceContext*>(ctx)) {
    auto s = make<JoinSource>(loc(ctx));
    s->left = c->kind->getText() == "left_join";
    for (int side = 0; side < 2; ++side) {
      s->inputs[side] = pipeline(c->pipeline(side));
      s->keys[side] = joinKey(c->joinKey(side));
    }
    s->fn = lambda(c->lambda());
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::ZipSourceContext*>(ctx)) {
    auto s = make<ZipSource>(loc(ctx));
    for (P::PipelineContext* input : c->pipeline()) s->inputs.push_back(pipeline(input));
    s->fn = lambda(c->lambda());
    return s;
  }
  if (auto* c = dynamic_cast<P::ConcatSourceContext*>(ctx)) {
    auto s = make<ConcatSource>(loc(ctx));
    for (P::PipelineContext* input : c->pipeline()) s->inputs.push_back(pipeline(input));
    return s;
  }
  auto* c = dynamic_cast<P::ExprSourceContext*>(ctx);
  if (!c) unreachable("AstBuilder: a source of no known alternative");
  auto s = make<ExprSource>(loc(ctx));
  s->expr = expr(c->expr());
  return s;
}

StagePtr AstBuilder::stage(P::StageContext* ctx) {
  if (auto* c = dynamic_cast<P::MapStageContext*>(ctx)) {
    auto s = make<MapStage>(loc(ctx));
    elementVar(*s, c->IDENT());
    s->body = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::FilterStageContext*>(ctx)) {
    auto s = make<FilterStage>(loc(ctx));
    elementVar(*s, c->IDENT());
    s->cond = expr(c->expr());
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::SortStageContext*>(ctx)) {
    auto s = make<SortStage>(loc(ctx));
    if (c->orderRef()) s->order = orderRef(c->orderRef());
    return s;
  }
  if (auto* c = dynamic_cast<P::UniqueStageContext*>(ctx)) {
    auto s = make<UniqueStage>(loc(ctx));
    for (P::ExprContext* key : c->expr()) s->keys.push_back(expr(key));
    s->estimate = estimate(c->estimate());
    return s;
  }
  if (auto* c = dynamic_cast<P::TakeStageContext*>(ctx)) {
    auto s = make<TakeStage>(loc(ctx));
    s->count = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::NamedStageContext*>(ctx)) {
    auto s = make<NamedStage>(loc(ctx));
    s->name = c->IDENT()->getText();
    if (c->expr()) s->argument = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::ReduceStageContext*>(ctx)) {
    auto s = make<ReduceStage>(loc(ctx));
    for (P::ExprContext* key : c->expr()) s->keys.push_back(expr(key));
    s->fn = lambda(c->lambda());
    s->estimate = estimate(c->estimate());
    return s;
  }
  auto* c = dynamic_cast<P::ForStageContext*>(ctx);
  auto s = make<ForStage>(loc(ctx));
  elementVar(*s, c->IDENT());
  s->body = block(c->block(0));
  if (c->endBlock) {
    s->hasEnd = true;
    s->endLoc = loc(c->endBlock);
    s->end = block(c->endBlock);
  }
  s->estimate = estimate(c->estimate());
  return s;
}

Lambda AstBuilder::lambda(P::LambdaContext* ctx) {
  Lambda fn;
  fn.loc = loc(ctx);
  for (antlr4::tree::TerminalNode* p : ctx->IDENT()) fn.params.push_back({p->getText(), loc(p), nullptr});
  fn.body = expr(ctx->expr());
  return fn;
}

JoinKey AstBuilder::joinKey(P::JoinKeyContext* ctx) {
  JoinKey key;
  key.loc = loc(ctx);
  if (auto* list = dynamic_cast<P::KeyListJoinKeyContext*>(ctx)) {
    for (P::OrderKeyContext* k : list->orderKey())
      key.keys.push_back({expr(k->expr()), k->direction && k->direction->getText() == "desc", loc(k)});
  } else {
    key.order = orderRef(dynamic_cast<P::OrderJoinKeyContext*>(ctx)->orderRef());
  }
  return key;
}

// ------------------------------------------------------------------------- statements

std::vector<StmtPtr> AstBuilder::block(P::BlockContext* ctx) {
  std::vector<StmtPtr> body;
  for (P::StatementContext* s : ctx->statement()) body.push_back(statement(s));
  return body;
}

StmtPtr AstBuilder::ifStatement(P::IfStatementContext* ctx) {
  auto s = make<IfStmt>(loc(ctx));
  s->cond = expr(ctx->expr());
  s->then = block(ctx->block(0));
  if (ctx->elseIf) {
    s->elseBranch = ifStatement(ctx->elseIf);
  } else if (ctx->elseBlock) {
    auto b = make<BlockStmt>(loc(ctx->elseBlock));
    b->body = block(ctx->elseBlock);
    s->elseBranch = std::move(b);
  }
  return s;
}

StmtPtr AstBuilder::statement(P::StatementContext* ctx) {
  if (auto* c = dynamic_cast<P::StreamDeclContext*>(ctx)) {
    auto d = make<StreamDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    if (c->type()) d->type = type(c->type());
    d->pipeline = pipeline(c->pipeline());
    return d;
  }
  if (auto* c = dynamic_cast<P::VectorDeclContext*>(ctx)) {
    auto d = make<VectorDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    if (c->type()) d->type = type(c->type());
    else d->pipeline = pipeline(c->pipeline());
    return d;
  }
  if (auto* c = dynamic_cast<P::PqDeclContext*>(ctx)) {
    auto d = make<PqDecl>(loc(ctx));
    d->name = c->IDENT()->getText();
    d->type = type(c->type());
    d->order = orderRef(c->orderRef());
    return d;
  }
  if (auto* c = dynamic_cast<P::LetStmtContext*>(ctx)) {
    auto s = make<LetStmt>(loc(ctx));
    s->name = c->IDENT()->getText();
    if (c->type()) s->type = type(c->type());
    s->init = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::VarStmtContext*>(ctx)) {
    auto s = make<LetStmt>(loc(ctx));
    s->isVar = true;
    s->name = c->IDENT()->getText();
    if (c->type()) s->type = type(c->type());
    s->init = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::IfStmtContext*>(ctx)) return ifStatement(c->ifStatement());
  if (auto* c = dynamic_cast<P::WhileStmtContext*>(ctx)) {
    auto s = make<WhileStmt>(loc(ctx));
    s->cond = expr(c->expr());
    s->rounds = estimate(c->estimate());
    s->body = block(c->block());
    return s;
  }
  if (auto* c = dynamic_cast<P::ForInStmtContext*>(ctx)) {
    auto s = make<ForInStmt>(loc(ctx));
    elementVar(*s, c->IDENT());
    s->pipeline = pipeline(c->pipeline());
    s->body = block(c->block());
    return s;
  }
  if (dynamic_cast<P::BreakStmtContext*>(ctx)) return make<JumpStmt>(loc(ctx));
  if (dynamic_cast<P::ContinueStmtContext*>(ctx)) {
    auto s = make<JumpStmt>(loc(ctx));
    s->isContinue = true;
    return s;
  }
  if (auto* c = dynamic_cast<P::EmitStmtContext*>(ctx)) {
    auto s = make<EmitStmt>(loc(ctx));
    s->value = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::PrintStmtContext*>(ctx)) {
    auto s = make<PrintStmt>(loc(ctx));
    s->message = stringLiteral(c->STRING());
    return s;
  }
  if (auto* c = dynamic_cast<P::WriteStmtContext*>(ctx)) {
    auto s = make<WriteStmt>(loc(ctx));
    s->pipeline = pipeline(c->pipeline());
    s->path = pathRef(c->pathRef());
    return s;
  }
  if (auto* c = dynamic_cast<P::WriteTextStmtContext*>(ctx)) {
    auto s = make<WriteStmt>(loc(ctx));
    s->text = true;
    s->pipeline = pipeline(c->pipeline());
    s->path = pathRef(c->pathRef());
    return s;
  }
  if (auto* c = dynamic_cast<P::WriteLinesStmtContext*>(ctx)) {
    auto s = make<WriteStmt>(loc(ctx));
    s->text = s->lines = true;
    s->pipeline = pipeline(c->pipeline());
    s->path = pathRef(c->pathRef());
    return s;
  }
  if (auto* c = dynamic_cast<P::WriteCsvStmtContext*>(ctx)) {
    auto s = make<WriteStmt>(loc(ctx));
    s->text = s->csv = true;
    s->pipeline = pipeline(c->pipeline());
    s->path = pathRef(c->pathRef());
    s->csvOptions = csvOptions(c->csvOption());
    return s;
  }
  if (auto* c = dynamic_cast<P::AssignStmtContext*>(ctx)) {
    auto s = make<AssignStmt>(loc(ctx));
    const std::string text = c->op->getText(); // "=" or "op="
    if (text != "=") s->op = *findBinaryOp(text.substr(0, text.size() - 1));
    s->target = expr(c->expr());
    // A right side that is only an expression is a value; anything else (a source, a
    // stage) is a pipeline, which sema accepts for a vector only.
    P::PipelineContext* p = c->pipeline();
    auto* plain = dynamic_cast<P::ExprSourceContext*>(p->source());
    if (plain && p->stage().empty()) s->value = expr(plain->expr());
    else s->pipeline = pipeline(p);
    return s;
  }
  if (auto* c = dynamic_cast<P::ExprStmtContext*>(ctx)) {
    auto s = make<ExprStmt>(loc(ctx));
    s->expr = expr(c->expr());
    return s;
  }
  if (auto* c = dynamic_cast<P::ArrayStmtContext*>(ctx)) {
    auto s = make<ArrayDecl>(loc(ctx));
    s->name = c->IDENT()->getText();
    s->element = type(c->type());
    s->length = expr(c->length);
    if (c->init) s->init = expr(c->init);
    return s;
  }
  if (auto* c = dynamic_cast<P::ReturnStmtContext*>(ctx)) {
    auto s = make<ReturnStmt>(loc(ctx));
    if (c->pipeline()) s->value = pipeline(c->pipeline());
    return s;
  }
  auto* c = dynamic_cast<P::BlockStmtContext*>(ctx);
  if (!c) unreachable("AstBuilder: a statement of no known alternative");
  auto s = make<BlockStmt>(loc(ctx));
  s->body = block(c->block());
  return s;
}

// ------------------------------------------------------------------------ expressions

ExprPtr AstBuilder::expr(P::ExprContext* ctx) {
  if (auto* c = dynamic_cast<P::PrimaryExprContext*>(ctx)) return primary(c->primary());
  if (auto* c = dynamic_cast<P::MethodCallExprContext*>(ctx)) {
    auto e = make<MethodCallExpr>(loc(ctx));
    e->object = expr(c->expr());
    e->method = c->fieldName()->getText();
    e->methodLoc = loc(c->fieldName());
    if (c->arguments()) e->args = arguments(c->arguments());
    return e;
  }
  if (auto* c = dynamic_cast<P::FieldExprContext*>(ctx)) {
    auto e = make<FieldExpr>(loc(ctx));
    e->object = expr(c->expr());
    e->field = c->fieldName()->getText();
    e->fieldLoc = loc(c->fieldName());
    return e;
  }
  if (auto* c = dynamic_cast<P::IndexExprContext*>(ctx)) {
    auto e = make<IndexExpr>(loc(ctx));
    e->object = expr(c->expr(0));
    e->index = expr(c->expr(1));
    return e;
  }
  if (auto* c = dynamic_cast<P::UnaryExprContext*>(ctx)) {
    auto e = make<UnaryExpr>(loc(ctx));
    e->op = *findUnaryOp(c->op->getText());
    e->operand = expr(c->expr());
    return e;
  }
  if (auto* c = dynamic_cast<P::CastExprContext*>(ctx)) {
    auto e = make<CastExpr>(loc(ctx));
    e->operand = expr(c->expr());
    e->target = type(c->type());
    return e;
  }
  auto* c = dynamic_cast<P::BinaryExprContext*>(ctx);
  if (!c) unreachable("AstBuilder: an expression of no known alternative");
  // A binary expression is located at its operator, where a type error would point.
  auto e = make<BinaryExpr>(loc(c->op));
  e->op = *findBinaryOp(c->op->getText());
  e->lhs = expr(c->expr(0));
  e->rhs = expr(c->expr(1));
  return e;
}

ExprPtr AstBuilder::primary(P::PrimaryContext* ctx) {
  if (auto* c = dynamic_cast<P::NumberLitContext*>(ctx)) return number(c->number());
  if (auto* c = dynamic_cast<P::SizeLitContext*>(ctx)) {
    auto e = make<SizeLitExpr>(loc(ctx));
    e->text = c->SIZE()->getText();
    std::string number, unit, message;
    splitSize(e->text, number, unit);
    if (auto bytes = parseSize(number, unit, message)) e->bytes = *bytes;
    else error(e->loc, message);
    return e;
  }
  if (auto* c = dynamic_cast<P::StringLitContext*>(ctx)) {
    auto e = make<StringLitExpr>(loc(ctx));
    e->literal = stringLiteral(c->STRING());
    return e;
  }
  if (dynamic_cast<P::BoolLitContext*>(ctx)) {
    auto e = make<BoolLitExpr>(loc(ctx));
    e->value = ctx->getText() == "true";
    return e;
  }
  if (auto* c = dynamic_cast<P::RecordExprContext*>(ctx)) {
    auto e = make<RecordInitExpr>(loc(ctx));
    e->recordName = qualifiedName(c->qualifiedName());
    for (P::FieldInitContext* f : c->fieldInit())
      e->fields.push_back({f->fieldName()->getText(), loc(f), expr(f->expr())});
    return e;
  }
  if (auto* c = dynamic_cast<P::ModuleRecordExprContext*>(ctx)) {
    auto e = make<RecordInitExpr>(loc(ctx));
    e->recordName = moduleName(c->name(0), c->name(1));
    for (P::FieldInitContext* f : c->fieldInit())
      e->fields.push_back({f->fieldName()->getText(), loc(f), expr(f->expr())});
    return e;
  }
  if (auto* c = dynamic_cast<P::CallExprContext*>(ctx)) {
    auto e = make<CallExpr>(loc(ctx));
    e->callee = qualifiedName(c->qualifiedName());
    if (c->arguments()) e->args = arguments(c->arguments());
    return e;
  }
  if (auto* c = dynamic_cast<P::NameExprContext*>(ctx)) {
    auto e = make<NameExpr>(loc(ctx));
    e->name = qualifiedName(c->qualifiedName());
    return e;
  }
  if (auto* c = dynamic_cast<P::ParenExprContext*>(ctx)) return expr(c->expr());
  if (auto* c = dynamic_cast<P::IfExprPrimaryContext*>(ctx)) return ifExpr(c->ifExpr());
  auto* c = dynamic_cast<P::ArrayExprContext*>(ctx);
  if (!c) unreachable("AstBuilder: a primary expression of no known alternative");
  if (c->count) {
    auto e = make<ArrayRepeatExpr>(loc(ctx));
    e->value = expr(c->expr(0));
    e->count = expr(c->count);
    return e;
  }
  auto e = make<ArrayListExpr>(loc(ctx));
  for (P::ExprContext* element : c->expr()) e->elements.push_back(expr(element));
  return e;
}

ExprPtr AstBuilder::ifExpr(P::IfExprContext* ctx) {
  auto e = make<IfExpr>(loc(ctx));
  e->cond = expr(ctx->cond);
  e->then = expr(ctx->then);
  if (ctx->elseIf) e->otherwise = ifExpr(ctx->elseIf);
  else if (ctx->otherwise) e->otherwise = expr(ctx->otherwise);
  else
    error(e->loc, "an 'if' expression needs an 'else': its value comes from one arm or the other "
                  "(if c { a } else { b })");
  return e;
}

ExprPtr AstBuilder::number(P::NumberContext* ctx) {
  std::string message;
  if (ctx->INT()) {
    auto e = make<IntLitExpr>(loc(ctx));
    e->text = ctx->getText();
    if (auto value = parseInteger(e->text, message)) e->value = *value;
    else error(e->loc, message);
    return e;
  }
  auto e = make<FloatLitExpr>(loc(ctx));
  e->text = ctx->getText();
  if (auto value = parseFloat(e->text, message)) e->value = *value;
  else error(e->loc, message);
  return e;
}

std::vector<ExprPtr> AstBuilder::arguments(P::ArgumentsContext* ctx) {
  std::vector<ExprPtr> args;
  for (P::PipelineContext* p : ctx->pipeline()) {
    // A plain expression stays an expression; anything with a stage or a special
    // source is a pipeline argument.
    auto* plain = dynamic_cast<P::ExprSourceContext*>(p->source());
    if (plain && p->stage().empty()) {
      args.push_back(expr(plain->expr()));
      continue;
    }
    auto e = make<PipelineArgExpr>(loc(p));
    e->pipeline = pipeline(p);
    args.push_back(std::move(e));
  }
  return args;
}

CsvOptions AstBuilder::csvOptions(const std::vector<P::CsvOptionContext*>& options) {
  CsvOptions out;
  std::set<std::string> seen;
  for (P::CsvOptionContext* o : options) {
    const std::string name = o->name()->getText();
    const std::string value = o->value->getText();
    const SourceLoc at = loc(o->name());
    if (!seen.insert(name).second) error(at, "the option '" + name + "' is given twice");
    const bool isBool = value == "true" || value == "false";
    if (name == "sep") {
      const std::string text = o->STRING() ? stringLiteral(o->STRING()).text() : std::string();
      if (text.size() != 1 || text == "\"" || text == "\n" || text == "\r")
        error(loc(o->value), "sep is one character other than a quote or a newline, such as \",\" or \"\\t\"");
      else out.sep = text[0];
    } else if (name == "header" || name == "empty_as_zero") {
      if (!isBool) error(loc(o->value), "'" + name + "' is true or false");
      else (name == "header" ? out.header : out.emptyAsZero) = value == "true";
    } else {
      const std::vector<std::string> names = {"sep", "header", "empty_as_zero"};
      std::string near = flow::nearest_name(name, names);
      error(at, "unknown CSV option '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                    " (the options are sep, header and empty_as_zero)");
    }
  }
  return out;
}

StringLiteral AstBuilder::stringLiteral(antlr4::tree::TerminalNode* node) {
  StringLiteral literal;
  literal.raw = node->getText();
  literal.loc = loc(node);
  std::vector<StringError> errors;
  std::vector<StringPiece> pieces = decodeString(literal.raw, errors);
  for (const StringError& e : errors)
    error({literal.loc.line, literal.loc.column + static_cast<uint32_t>(e.offset)}, e.message);
  for (StringPiece& piece : pieces) {
    StringPart part;
    if (piece.isExpr) {
      LocationMap at{literal.loc.line, literal.loc.column + static_cast<uint32_t>(piece.offset)};
      part.expr = parseExpression(piece.text, file_, diags_, at, nestingDepth(node));
      if (!part.expr) continue;
    } else {
      part.text = std::move(piece.text);
    }
    literal.parts.push_back(std::move(part));
  }
  return literal;
}

} // namespace flow::parse
