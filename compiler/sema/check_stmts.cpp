// Statements and declarations, scopes, and the order in which a script is checked.
#include "sema/checker.hpp"

#include "ast/visit.hpp"

#include "flow/defaults.hpp"
#include "flow/edit_distance.hpp"

#include <algorithm>

namespace flow::sema {

using namespace flow::ast;

Checker::Checker(Program& program, CheckedProgram& out, DiagnosticEngine& diags, const SemaOptions& options)
    : program_(program), out_(out), diags_(diags), file_(program.file), options_(options) {
  out_.ast = &program;
  pushScope();
  for (const ast::BuiltinInfo& b : ast::builtins()) {
    Symbol s{Symbol::Builtin, b.name, {}};
    scopes_.back()[b.name] = &out_.symbols.emplace_back(std::move(s));
  }
  // The script's own names live in a scope of their own, so `var sum` or `let count`
  // shadow the builtins instead of clashing with them.
  pushScope();
}

// ------------------------------------------------------------------------------ scopes

Symbol& Checker::declare(Symbol symbol) {
  if (scriptAliases_.count(symbol.name)) {
    error(symbol.loc, "'" + symbol.name + "' names a module here (see its 'use'); choose another name");
    return out_.symbols.emplace_back(std::move(symbol));
  }
  auto& scope = scopes_.back();
  auto it = scope.find(symbol.name);
  if (it != scope.end()) {
    error(symbol.loc, "redefinition of '" + symbol.name + "'");
    note(it->second->loc, "previous definition of '" + symbol.name + "' is here");
    return out_.symbols.emplace_back(std::move(symbol)); // checked, but not visible
  }
  Symbol& s = out_.symbols.emplace_back(std::move(symbol));
  scope[s.name] = &s;
  return s;
}

void Checker::declareElement(ElementVar& v, Symbol::Kind kind, const Type* type) {
  Symbol element{kind, v.var, v.varLoc};
  element.type = type;
  v.varSymbol = &declare(std::move(element));
}

Symbol* Checker::lookup(const std::string& name) {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    if (auto it = scope->find(name); it != scope->end()) return it->second;
  return nullptr;
}

std::vector<std::string> Checker::namesInScope() const {
  std::vector<std::string> names;
  for (const auto& scope : scopes_)
    for (const auto& [name, s] : scope) names.push_back(name);
  return names;
}

std::string Checker::suggest(const std::string& name, const std::vector<std::string>& candidates) const {
  const std::string best = flow::nearest_name(name, candidates);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

// -------------------------------------------------------------------------- the driver

void Checker::run() {
  // Types and orders may be used before their declaration (they do not run); values
  // (params, streams, vectors, queues, variables) are visible from their declaration on.
  loadModules();
  for (StmtPtr& item : program_.items)
    if (auto* f = item->as<FnDecl>()) declareFunction(*f);
  findChangedVectors();
  for (StmtPtr& item : program_.items) {
    if (auto* d = item->as<ImportDecl>()) importHeader(*d);
    if (auto* p = item->as<ParamDecl>()) laterValues_[p->name] = "param";
    if (auto* st = item->as<StreamDecl>()) laterValues_[st->name] = "stream";
    if (auto* v = item->as<VectorDecl>()) laterValues_[v->name] = "vector";
    if (auto* q = item->as<PqDecl>()) laterValues_[q->name] = "priority queue";
    if (auto* l = item->as<LetStmt>()) laterValues_[l->name] = l->isVar ? "variable" : "let value";
    if (auto* a = item->as<ArrayDecl>()) laterValues_[a->name] = "array";
  }
  for (StmtPtr& item : program_.items)
    if (auto* d = item->as<RecordDecl>()) declareRecord(*d);
  resolvingTypes_ = true;
  for (auto& [info, decl] : declOfRecord_) layOutRecord(*info, *decl);
  resolvingTypes_ = false;
  for (StmtPtr& item : program_.items)
    if (auto* d = item->as<OrderDecl>()) declareOrder(*d);
  checkStatements(program_.items, true);
  checkLaterReads();
}

void Checker::checkItem(Stmt& s) {
  // A stream or a vector: its name, for what its pipeline (or its declared type) holds.
  auto declareFilled = [this](Symbol::Kind kind, auto& d, const Type* t) {
    Symbol sym{kind, d.name, d.loc};
    sym.type = t;
    sym.pipeline = d.pipeline.get();
    sym.decl = &d;
    d.symbol = &declare(std::move(sym));
  };
  switch (s.kind()) {
  case Stmt::Import:
  case Stmt::Use:
  case Stmt::Fn:
  case Stmt::Record:
  case Stmt::Order: return; // done before the rest
  case Stmt::Param: return checkParam(*s.as<ParamDecl>());
  case Stmt::Memory:
  case Stmt::BlockSize: return checkSizeDecl(*s.as<SizeDecl>());
  case Stmt::Stream: {
    auto& d = *s.as<StreamDecl>();
    const Type* t = checkPipeline(*d.pipeline, "stream");
    if (d.type) {
      const Type* declared = resolveType(*d.type);
      if (!declared->isError() && !t->isError() && declared != t)
        error(d.pipeline->loc, "stream " + d.name + " is declared to hold " + declared->name() + ", but this pipeline gives " +
                                   t->name());
      if (!declared->isError()) t = declared;
    }
    return declareFilled(Symbol::Stream, d, t);
  }
  case Stmt::Vector: {
    auto& d = *s.as<VectorDecl>();
    const Type* t = d.type ? resolveType(*d.type) : checkPipeline(*d.pipeline, "vector " + d.name);
    return declareFilled(Symbol::Vector, d, t);
  }
  case Stmt::Pq: {
    auto& d = *s.as<PqDecl>();
    const Type* t = resolveType(*d.type);
    Symbol sym{Symbol::Queue, d.name, d.loc};
    sym.type = t;
    sym.decl = &d;
    if (!t->isError()) sym.order = resolveOrder(d.order, t, "priority queue '" + d.name + "'", true);
    d.symbol = &declare(std::move(sym));
    return;
  }
  default: return checkStmt(s);
  }
}

void Checker::checkParam(ParamDecl& d) {
  allowPath_ = true;
  const Type* t = resolveType(*d.type);
  allowPath_ = false;
  Symbol sym{Symbol::Param, d.name, d.loc};
  sym.type = t;
  sym.decl = &d;
  if (t->kind == Type::Path) {
    // A file name, set with --NAME=FILE: its default is a plain string literal.
    auto* s = d.init->as<StringLitExpr>();
    if (!s) error(d.init->loc, "the default of path param '" + d.name + "' must be a string literal, e.g. \"in.bin\"");
    else checkPathLiteral(s->literal);
    d.init->type = t;
    d.symbol = &declare(std::move(sym));
    return;
  }
  if (!t->isError() && !t->isNumeric() && t->kind != Type::Bool) {
    error(d.type->loc, "a param is a number or a bool (it is set with --" + d.name + "=VALUE), not " + t->name());
    t = out_.types.error();
  }
  if (!t->isError() && !check(*d.init, t)->isError() && convert(*d.init, t, "as the default of param '" + d.name + "'")) {
    std::string why;
    sym.value = constant(*d.init, &why);
    if (!sym.value) error(d.init->loc, "the default of param '" + d.name + "' must be a constant: " + why);
  }
  d.symbol = &declare(std::move(sym));
}

void Checker::checkSizeDecl(SizeDecl& d) {
  std::optional<uint64_t>& slot = d.isBlock ? out_.blockBytes : out_.memoryBytes;
  const char* what = d.isBlock ? "block" : "memory";
  if (slot) {
    error(d.loc, std::string("'") + what + "' is declared twice");
    return;
  }
  if (d.isBlock && (d.bytes < 4096 || (d.bytes & (d.bytes - 1)) != 0)) {
    error(d.sizeLoc, "a block size must be a power of two of at least 4 KiB (direct I/O needs aligned blocks), not " +
                         std::to_string(d.bytes) + " bytes");
    return;
  }
  if (!d.isBlock && d.bytes < flow::min_memory_bytes) {
    error(d.sizeLoc, "a memory budget below 4 KiB leaves no room for even one block; " + std::to_string(d.bytes) +
                         " bytes given");
    return;
  }
  slot = d.bytes;
}

// --------------------------------------------------------------------------- statements

void Checker::checkBlock(std::vector<StmtPtr>& body, bool plainBlock) {
  // Streams, vectors and queues declared here are visible until the block ends.
  pushScope(plainBlock);
  checkStatements(body, false);
  popScope();
}

void Checker::checkLet(LetStmt& s) {
  const Type* declared = s.type ? resolveType(*s.type) : nullptr;
  const Type* t = check(*s.init, declared);
  if (declared && !declared->isError() && !t->isError()) {
    if (convert(*s.init, declared, "to initialize '" + s.name + "'")) t = declared;
    else t = out_.types.error();
  } else if (!t->isError()) {
    t = finalize(*s.init);
  }
  if (!t->isError() && (t->kind == Type::Void)) {
    error(s.init->loc, "'" + s.name + "' needs a value, but this expression has none");
    t = out_.types.error();
  }
  Symbol sym{s.isVar ? Symbol::Var : Symbol::Let, s.name, s.loc};
  sym.type = declared && !declared->isError() ? declared : t;
  sym.decl = &s;
  s.symbol = &declare(std::move(sym));
}

void Checker::checkArrayDecl(ArrayDecl& d) {
  const Type* element = resolveType(*d.element);
  const Type* u64 = out_.types.scalar(Type::U64);
  const Type* length = check(*d.length, u64);
  if (!length->isError()) {
    if (!length->isInteger() || length->isSigned()) {
      error(d.length->loc, "the length of array '" + d.name + "' must be a u64, not " + length->name() +
                               (length->isNumeric() ? " (convert it with 'as u64')" : ""));
    } else {
      convert(*d.length, u64, "as the length of array '" + d.name + "'");
    }
  }
  if (!element->isError() && (element->kind == Type::Void)) {
    error(d.element->loc, "an array holds values, not " + element->name());
    element = out_.types.error();
  }
  if (d.init) {
    const Type* v = check(*d.init, element->isError() ? nullptr : element);
    if (!v->isError() && !element->isError())
      convert(*d.init, element, "to fill array '" + d.name + "' of " + element->name());
  }
  Symbol sym{Symbol::Array, d.name, d.loc};
  sym.type = element;
  sym.decl = &d;
  d.symbol = &declare(std::move(sym));
}

bool Checker::isAssignable(Expr& target, std::string& why, SourceLoc& declLoc) {
  if (auto* i = target.as<IndexExpr>()) {
    // An element of an array or of an external vector.
    auto* n = i->object->as<NameExpr>();
    if (n && n->symbol && (n->symbol->kind == Symbol::Array || n->symbol->kind == Symbol::Vector)) return true;
  }
  if (auto* f = target.as<FieldExpr>()) return isAssignable(*f->object, why, declLoc);
  if (auto* i = target.as<IndexExpr>()) return isAssignable(*i->object, why, declLoc);
  auto* n = target.as<NameExpr>();
  if (!n || !n->symbol) {
    why = "only variables, their fields and their elements can be assigned";
    return false;
  }
  declLoc = n->symbol->loc;
  switch (n->symbol->kind) {
  case Symbol::Var: return true;
  case Symbol::Let: why = "'" + n->symbol->name + "' is declared with let; declare it with var to change it"; break;
  case Symbol::Param: why = "'" + n->symbol->name + "' is a param, set on the command line"; break;
  case Symbol::LoopVar:
  case Symbol::LambdaVar: why = "'" + n->symbol->name + "' is the current element, which cannot be changed"; break;
  default: why = "'" + n->symbol->name + "' is a " + n->symbol->kindName(); break;
  }
  return false;
}

void Checker::checkRefill(AssignStmt& s, NameExpr& target, Symbol& vector) {
  // `v = pipeline;` (or `v = w;` for a stream or vector w): new contents for v.
  target.symbol = &vector;
  target.type = vector.type;
  s.vector = &vector;
  if (s.op) {
    error(s.loc, "'" + s.spelling() + "' does not apply to a vector; 'v = pipeline;' refills it, 'v.push(x)' adds one element");
    return;
  }
  if (!s.pipeline) {
    s.pipeline = std::make_unique<Pipeline>();
    s.pipeline->loc = s.value->loc;
    auto source = std::make_unique<ExprSource>();
    source->loc = s.value->loc;
    source->expr = std::move(s.value);
    s.pipeline->source = std::move(source);
  }
  const Type* t = checkPipeline(*s.pipeline, "vector refill");
  if (t->isError() || vector.type->isError()) return;
  if (t != vector.type)
    error(s.pipeline->loc, "vector " + vector.name + " holds " + vector.type->name() + ", but this pipeline gives " +
                               t->name());
}

void Checker::checkAssign(AssignStmt& s) {
  if (auto* n = s.target->as<NameExpr>(); n && n->name.parts.size() == 1)
    if (Symbol* sym = lookup(n->name.str()); sym && sym->kind == Symbol::Vector) return checkRefill(s, *n, *sym);
  if (s.pipeline) {
    error(s.pipeline->loc, "only a vector can be given a pipeline ('v = pipeline;'); this assigns a value");
    check(*s.target);
    return;
  }
  const Type* target = check(*s.target);
  if (target->isError()) {
    check(*s.value);
    return;
  }
  std::string why;
  SourceLoc declLoc;
  if (!isAssignable(*s.target, why, declLoc)) {
    error(s.target->loc, "cannot assign to this: " + why);
    if (declLoc.valid()) note(declLoc, "declared here");
    return;
  }
  const Type* v = check(*s.value, target);
  if (v->isError()) return;
  if (!s.op) {
    convert(*s.value, target, "in an assignment to " + target->name());
    return;
  }
  const ast::OperatorKind kind = ast::kindOf(*s.op);
  bool shift = kind == ast::OperatorKind::Shift;
  bool integerOnly = *s.op == ast::BinaryOp::Rem || kind == ast::OperatorKind::Bitwise || shift;
  if (!target->isNumeric() || (integerOnly && !target->isInteger())) {
    error(s.loc, "'" + s.spelling() + "' needs " + std::string(integerOnly ? "an integer" : "a number") + " to change, not " +
                     target->name());
    return;
  }
  if (shift) {
    if (!v->isInteger()) error(s.value->loc, "a shift count must be an integer, not " + v->name());
    else finalize(*s.value);
    return;
  }
  convert(*s.value, target, "in '" + s.spelling() + "'");
}

void Checker::checkPathLiteral(const StringLiteral& path) {
  if (path.isInterpolated()) error(path.loc, "a path cannot contain '{…}'");
  else if (path.text().empty()) error(path.loc, "a path cannot be empty");
}

void Checker::checkPath(PathRef& path) {
  if (!path.isParam()) return checkPathLiteral(path.literal);
  const Symbol* s = lookup(path.param);
  const std::string what = "a path is a string literal or a param of type path; ";
  if (!s) {
    auto later = laterValues_.find(path.param);
    if (later != laterValues_.end()) error(path.loc, "'" + path.param + "' is used before its declaration");
    else error(path.loc, what + "there is no '" + path.param + "'" + suggest(path.param, namesInScope()));
    return;
  }
  if (s->kind != Symbol::Param || !s->type || s->type->kind != Type::Path) {
    std::string is = s->kind == Symbol::Param && s->type ? "a " + s->type->name() + " param" : std::string("a ") + s->kindName();
    error(path.loc, what + "'" + path.param + "' is " + is);
    if (s->loc.valid()) note(s->loc, "declared here");
    return;
  }
  path.symbol = s;
}

MethodCallExpr* Checker::piecesSource(Pipeline& p) {
  if (!p.stages.empty()) return nullptr;
  auto* src = p.source->as<ExprSource>();
  auto* m = src ? src->expr->as<MethodCallExpr>() : nullptr;
  if (!m || (m->method != "words" && m->method != "split")) return nullptr;
  const Type* t = check(*m->object);
  return t->isStr() ? m : nullptr;
}

void Checker::checkPrint(PrintStmt& s) { checkInterpolations(s.message, "print"); }

void Checker::checkInterpolations(StringLiteral& literal, const std::string& what) {
  for (StringPart& part : literal.parts) {
    if (!part.expr) continue;
    if (auto* n = part.expr->as<NameExpr>(); n && n->name.parts.size() == 1) {
      // A path param shows as its file name.
      const Symbol* p = lookup(n->name.str());
      if (p && p->kind == Symbol::Param && p->type && p->type->kind == Type::Path) {
        n->symbol = p;
        n->type = p->type;
        continue;
      }
    }
    const Type* t = check(*part.expr);
    if (t->isError()) continue;
    t = finalize(*part.expr);
    if (!t->isScalar() || t->kind == Type::Void)
      error(part.expr->loc, what + " shows numbers, bools and strings; this is " + t->name() +
                                (t->kind == Type::Record ? " (show its fields)" : ""));
  }
}

void Checker::takenWhilePoppingBelow(const ForInStmt& f, const Symbol& queue) {
  // The program would stop at them (flow::containers::priority_queue's limit loop): said
  // here, also where a function the body calls does it (its body is expanded in place).
  struct Finder : Visitor {
    Checker& checker;
    const Symbol& queue;
    Finder(Checker& c, const Symbol& q) : checker(c), queue(q) {}
    bool visit(const Expr& x) override {
      auto* m = x.as<MethodCallExpr>();
      if (!m || m->container != &queue || !m->methodId) return true;
      const ast::Method id = *m->methodId;
      if (id == ast::Method::Top || id == ast::Method::Pop || id == ast::Method::PopBelow)
        checker.error(m->methodLoc, "'" + queue.name + "." + m->method + "(…)' inside a loop over " + queue.name +
                                        ".pop_below(…), which is taking the queue's first items: the loop's element "
                                        "is the item (pushes at or after its limit are allowed)");
      return true;
    }
  } finder(*this, queue);
  for (const StmtPtr& s : f.body) finder.walk(*s);
}

void Checker::checkStmt(Stmt& s) {
  switch (s.kind()) {
  case Stmt::Stream:
  case Stmt::Vector:
  case Stmt::Pq: return checkItem(s); // declared in a block: lives until it ends
  case Stmt::Let:
  case Stmt::Var: return checkLet(*s.as<LetStmt>());
  case Stmt::Assign: return checkAssign(*s.as<AssignStmt>());
  case Stmt::If: {
    auto& i = *s.as<IfStmt>();
    const Type* c = check(*i.cond);
    if (!c->isError() && c->kind != Type::Bool) error(i.cond->loc, "a condition must be a bool, not " + c->name());
    checkBlock(i.then);
    if (i.elseBranch) {
      if (auto* b = i.elseBranch->as<BlockStmt>()) checkBlock(b->body);
      else checkStmt(*i.elseBranch);
    }
    return;
  }
  case Stmt::While: {
    auto& w = *s.as<WhileStmt>();
    const Type* c = check(*w.cond);
    if (!c->isError() && c->kind != Type::Bool) error(w.cond->loc, "a condition must be a bool, not " + c->name());
    checkEstimate(w.rounds, EstimateOf::count);
    ++loopDepth_;
    checkBlock(w.body);
    --loopDepth_;
    return;
  }
  case Stmt::ForIn: {
    auto& f = *s.as<ForInStmt>();
    const Type* t = nullptr;
    if (auto* m = piecesSource(*f.pipeline)) {
      // `for w in s.words()` / `s.split(sep)`: a loop in memory over one str's pieces.
      t = checkStrMethod(*m, /*asLoopSource=*/true);
      m->type = t;
      f.pipeline->elementType = t;
      f.overPieces = true;
    } else {
      t = checkPipeline(*f.pipeline, "for loop");
    }
    pushScope();
    declareElement(f, Symbol::LoopVar, t);
    ++loopDepth_;
    checkBlock(f.body);
    --loopDepth_;
    popScope();
    if (auto* e = f.pipeline->source->as<ExprSource>())
      if (auto* m = e->expr->as<MethodCallExpr>(); m && m->methodId == ast::Method::PopBelow)
        takenWhilePoppingBelow(f, *m->container);
    return;
  }
  case Stmt::Break:
  case Stmt::Continue: {
    const char* word = s.kind() == Stmt::Break ? "break" : "continue";
    if (loopDepth_ == 0)
      error(s.loc, std::string("'") + word + "' is only allowed inside a while or for loop" +
                       (stages_.empty() ? "" : " (a for stage runs once per element; it is not a loop)"));
    return;
  }
  case Stmt::Emit: {
    auto& e = *s.as<EmitStmt>();
    if (stages_.empty()) {
      error(s.loc, "'emit' is only allowed in a for stage (pipeline | for x { … emit value; … })");
      check(*e.value);
      return;
    }
    // By index: checking the value may check a pipeline with for stages of its own,
    // which grows stages_ and moves its elements.
    const size_t current = stages_.size() - 1;
    const Type* t = check(*e.value, stages_[current].emitted);
    if (t->isError()) return;
    StageContext& stage = stages_[current];
    if (!stage.emitted) {
      t = finalize(*e.value);
      if (t->kind == Type::Void) {
        error(e.value->loc, "emit needs a value, not " + t->name());
        return;
      }
      stage.emitted = t;
    } else {
      convert(*e.value, stage.emitted, "in emit (this for stage emits " + stage.emitted->name() + ")");
    }
    return;
  }
  case Stmt::Print: return checkPrint(*s.as<PrintStmt>());
  case Stmt::Write:
  case Stmt::WriteText: {
    auto& w = *s.as<WriteStmt>();
    checkPath(w.path);
    const std::string verb = w.csv ? "write_csv" : w.lines ? "write_lines" : w.text ? "write_text" : "write";
    const Type* t = checkPipeline(*w.pipeline, verb);
    if (w.csv) {
      requireCsvRecord(t, w.pipeline->loc, "write_csv");
      return;
    }
    if (w.lines && !t->isError() && !t->isStr())
      error(w.pipeline->loc, "write_lines writes str elements, one per line; this pipeline gives " + t->name() +
                                 " (make each a str: map x => \"{x}\", or use write_text)");
    else if (w.text) requireTextual(t, w.pipeline->loc, "write_text");
    return;
  }
  case Stmt::Evaluate: {
    Expr& e = *s.as<ExprStmt>()->expr;
    const Type* t = check(e);
    if (!t->isError() && !e.as<MethodCallExpr>() && !e.as<CallExpr>())
      error(e.loc, "this expression computes a value and throws it away; assign it or use it");
    return;
  }
  case Stmt::Block: return checkBlock(s.as<BlockStmt>()->body, true);
  case Stmt::Array: return checkArrayDecl(*s.as<ArrayDecl>());
  case Stmt::Return: return error(s.loc, "'return' is only allowed at the end of a function's body");
  case Stmt::Fn:
  case Stmt::Use: return error(s.loc, "functions and 'use' are declared at the top level of a file");
  default:
    // Declarations inside blocks are reported by checkBlock.
    return;
  }
}

std::unique_ptr<CheckedProgram> analyze(Program& program, DiagnosticEngine& diags, const SemaOptions& options) {
  auto out = std::make_unique<CheckedProgram>();
  out->types.setStrCapacity(options.strCapacity);
  unsigned before = diags.errorsReported();
  Checker(program, *out, diags, options).run();
  if (diags.errorsReported() != before) return nullptr;
  return out;
}

} // namespace flow::sema
