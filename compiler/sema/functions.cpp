// Functions. A function is expanded at each call, so every call gets its own check, plan
// and code, and a body can declare queues, vectors and loops like any script:
//  - a call of a function with a block body, or with stream, vector, array or order
//    parameters or results, is replaced by its body's statements, placed before the
//    statement that holds the call (its locals renamed `f.local`), and by the value the
//    body returns;
//  - a call of a function with an expression body and value parameters only is inlined
//    where it stands (CallExpr::inlined), so it may be called anywhere, even per element.
#include "ast/clone.hpp"
#include "ast/visit.hpp"
#include "sema/checker.hpp"

#include <functional>

namespace flow::sema {

using namespace flow::ast;

namespace {

/// Every name a function's body declares: its lets and vars, streams, vectors, queues,
/// arrays, loop and stage variables and lambda parameters.
std::set<std::string> bodyNames(const FnDecl& fn) {
  struct Names : Visitor {
    std::set<std::string> names;
    void lambda(const Lambda& l) {
      for (const Lambda::Param& p : l.params) names.insert(p.name);
    }
    bool visit(const Stmt& s) override {
      if (auto* l = s.as<LetStmt>()) names.insert(l->name);
      if (auto* d = s.as<StreamDecl>()) names.insert(d->name);
      if (auto* d = s.as<VectorDecl>()) names.insert(d->name);
      if (auto* d = s.as<PqDecl>()) names.insert(d->name);
      if (auto* d = s.as<ArrayDecl>()) names.insert(d->name);
      if (auto* f = s.as<ForInStmt>()) names.insert(f->var);
      return true;
    }
    bool visit(const Stage& s) override {
      if (auto* m = s.as<MapStage>()) names.insert(m->var);
      if (auto* f = s.as<FilterStage>()) names.insert(f->var);
      if (auto* f = s.as<ForStage>()) names.insert(f->var);
      if (auto* r = s.as<ReduceStage>()) lambda(r->fn);
      return true;
    }
    bool visit(const Source& s) override {
      if (auto* j = s.as<JoinSource>()) lambda(j->fn);
      if (auto* z = s.as<ZipSource>()) lambda(z->fn);
      return true;
    }
  } names;
  if (fn.exprBody) names.walk(*fn.exprBody);
  for (const StmtPtr& s : fn.body) names.walk(*s);
  return names.names;
}

ExprPtr nameExpr(const std::string& name, SourceLoc loc);

/// Copies a function's body for one call: parameters become the arguments, the body's
/// own names become unique, type and order parameters become what the call gave them,
/// and every location remembers the call.
class Expander : public Cloner {
public:
  uint32_t origin = 0;
  std::string prefix;                         // "mis" or "mis#2": the body's names are "mis.out"
  std::set<std::string> locals;               // the body's own names
  std::map<std::string, std::string> renamed; // a local given a name of the caller's
  std::map<std::string, std::function<ExprPtr(SourceLoc)>> values; // parameter → argument
  std::map<std::string, const Type*> types;   // type parameter → type
  std::map<std::string, OrderRef> orders;     // order parameter → order

protected:
  SourceLoc at(SourceLoc loc) override {
    if (loc.valid()) loc.origin = origin;
    return loc;
  }
  std::string rename(const std::string& name) override {
    if (auto it = renamed.find(name); it != renamed.end()) return it->second;
    return locals.count(name) ? prefix + "." + name : name;
  }
  ExprPtr substitute(const NameExpr& n) override {
    if (n.name.parts.size() != 1) return nullptr;
    if (auto o = orders.find(n.name.parts[0]); o != orders.end()) // an order passed on to a call
      return nameExpr(o->second.name.str(), at(n.loc));
    auto it = values.find(n.name.parts[0]);
    return it == values.end() ? nullptr : it->second(at(n.loc));
  }
  TypeRefPtr substituteType(const NamedType& t) override {
    if (t.name.parts.size() != 1) return nullptr;
    auto it = types.find(t.name.parts[0]);
    if (it == types.end()) return nullptr;
    auto out = std::make_unique<NamedType>();
    out->loc = at(t.loc);
    out->name.parts = {it->second->name()};
    out->name.loc = out->loc;
    out->resolved = it->second;
    return out;
  }
  std::optional<OrderRef> substituteOrder(const OrderRef& o) override {
    if (o.name.parts.size() != 1) return std::nullopt;
    auto it = orders.find(o.name.parts[0]);
    if (it == orders.end()) return std::nullopt;
    OrderRef out = it->second;
    out.loc = at(o.loc);
    return out;
  }
};

ExprPtr nameExpr(const std::string& name, SourceLoc loc) {
  auto n = std::make_unique<NameExpr>();
  n->loc = loc;
  n->name.parts = {name};
  n->name.loc = loc;
  return n;
}

PipelinePtr pipelineOf(ExprPtr e) {
  if (auto* p = e->as<PipelineArgExpr>()) return std::move(p->pipeline);
  auto pipeline = std::make_unique<Pipeline>();
  pipeline->loc = e->loc;
  auto source = std::make_unique<ExprSource>();
  source->loc = e->loc;
  source->expr = std::move(e);
  pipeline->source = std::move(source);
  return pipeline;
}

/// A plain expression in pipeline form (`return x;`), or null.
Expr* plainExpr(Pipeline& p) {
  auto* e = p.source->as<ExprSource>();
  return e && p.stages.empty() ? e->expr.get() : nullptr;
}

/// The type parameter `p` binds: its type is a type parameter T not bound yet (the
/// argument's type becomes T); "" otherwise.
std::string bindsTypeParam(const FnDecl& fn, const FnParam& p, const std::map<std::string, const Type*>& bound) {
  auto* named = p.type->as<NamedType>();
  if (!named || named->name.parts.size() != 1 || bound.count(named->name.parts[0])) return "";
  for (const auto& tp : fn.typeParams)
    if (tp.first == named->name.parts[0]) return tp.first;
  return "";
}

const char* kindWord(FnParam::Kind k) {
  switch (k) {
  case FnParam::Value: return "a value";
  case FnParam::Stream: return "a stream";
  case FnParam::Vector: return "a vector";
  case FnParam::Array: return "an array";
  case FnParam::Order: return "an order";
  case FnParam::Queue: return "a priority queue";
  }
  return "";
}

} // namespace

// ------------------------------------------------------------------------ declarations

void Checker::declareFunction(FnDecl& fn) {
  if (functions_.count(fn.name)) {
    error(fn.loc, "redefinition of function '" + fn.name + "'");
    note(functions_[fn.name]->loc, "previous definition is here");
    return;
  }
  if (findBuiltin(fn.name)) {
    error(fn.loc, "'" + fn.name + "' is a builtin; give the function another name");
    return;
  }
  std::set<std::string> seen;
  for (const auto& [name, loc] : fn.typeParams)
    if (!seen.insert(name).second) error(loc, "type parameter '" + name + "' is declared twice");
  for (const FnParam& p : fn.params)
    if (!seen.insert(p.name).second) error(p.loc, "parameter '" + p.name + "' is declared twice");
  if (fn.result && fn.result->kind == FnParam::Array)
    error(fn.result->loc, "a function cannot return an array; take one as a parameter (array<T>) and fill it");
  if (fn.result && fn.result->kind == FnParam::Order)
    error(fn.result->loc, "a function cannot return an order");
  if (fn.result && fn.result->kind == FnParam::Queue)
    error(fn.result->loc, "a function cannot return a priority queue; take one as a parameter (pq<T>) and push to it");
  if (!fn.hasBlock && !fn.result)
    error(fn.loc, "a function with an expression body needs a result type: fn " + fn.name + "(…) -> T = …;");
  // `return` ends a block body, once.
  struct Returns : Visitor {
    std::vector<const ReturnStmt*> all;
    bool visit(const Stmt& s) override {
      if (auto* r = s.as<ReturnStmt>()) all.push_back(r);
      return true;
    }
  } returns;
  for (const StmtPtr& s : fn.body) returns.walk(*s);
  const ReturnStmt* last = !fn.body.empty() ? fn.body.back()->as<ReturnStmt>() : nullptr;
  for (const ReturnStmt* r : returns.all)
    if (r != last) error(r->loc, "'return' may only end a function's body (its last statement)");
  if (fn.hasBlock && fn.result && (!last || !last->value))
    error(fn.loc, "function '" + fn.name + "' returns " + (fn.result->kind == FnParam::Value ? "a value" : kindWord(fn.result->kind)) +
                      ": end its body with 'return …;'");
  if (fn.hasBlock && !fn.result && last && last->value)
    error(last->loc, "function '" + fn.name + "' declares no result (add '-> T' after its parameters)");
  // A body's own names may not hide its parameters, and break/continue stay in its own
  // loops (its statements run inside the caller's, which must not be left by them).
  for (const std::string& local : bodyNames(fn))
    for (const FnParam& p : fn.params)
      if (p.name == local) error(p.loc, "parameter '" + p.name + "' is declared again in the body of '" + fn.name + "'; rename one");
  struct Jumps : Visitor {
    int loops = 0;
    std::vector<SourceLoc> outside;
    void body(const std::vector<StmtPtr>& stmts) {
      for (const StmtPtr& s : stmts) walk(*s);
    }
    bool visit(const Stmt& s) override {
      if (s.as<JumpStmt>() && loops == 0) outside.push_back(s.loc);
      if (auto* w = s.as<WhileStmt>()) {
        ++loops;
        body(w->body);
        --loops;
        return false;
      }
      if (auto* f = s.as<ForInStmt>()) {
        ++loops;
        body(f->body);
        --loops;
        return false;
      }
      return true;
    }
  } jumps;
  jumps.body(fn.body);
  for (SourceLoc at : jumps.outside)
    error(at, "'break' and 'continue' in a function's body must be inside one of its own loops");
  functions_[fn.name] = &fn;
}

bool Checker::inlinable(const FnDecl& fn) {
  if (fn.hasBlock || !fn.result || fn.result->kind != FnParam::Value) return false;
  for (const FnParam& p : fn.params)
    if (p.kind != FnParam::Value) return false;
  // An aggregate of a stream (`max(generate(n) { k } | …)`) runs as a phase of its own
  // before the statement that needs its value, so a body with one (or with a call of a
  // function that runs as statements) runs as statements too: inlined, the phase would
  // read the parameters before the call bound them.
  // Asked once per function, at every call of it. (Functions that call each other are
  // reported as recursion when called: while a walk is under way its answer is true.)
  auto [known, first] = inlinableOf_.emplace(&fn, true);
  if (!first) return known->second;
  struct Finder : Visitor {
    Checker& checker;
    bool phase = false;
    explicit Finder(Checker& c) : checker(c) {}
    bool visit(const Expr& e) override {
      const FnDecl* called = checker.functionCalled(e);
      phase = phase || e.as<PipelineArgExpr>() || (called && !checker.inlinable(*called));
      return !phase;
    }
  } finder{*this};
  finder.walk(*fn.exprBody);
  return known->second = !finder.phase;
}

FnDecl* Checker::functionCalled(const Expr& e) {
  auto* c = e.as<CallExpr>();
  if (!c || c->callee.parts.size() != 1) return nullptr;
  auto it = functions_.find(c->callee.parts[0]);
  return it == functions_.end() ? nullptr : it->second;
}

bool Checker::recursive(const FnDecl& fn, SourceLoc call) {
  for (uint32_t o = call.origin; o != 0;) {
    const SourceOrigin& origin = sourceOrigin(o);
    if (!origin.call.valid()) break;
    if (origin.function == fn.name) {
      error(call, "function '" + fn.name + "' calls itself: functions are expanded at each call, so recursion "
                                         "(direct or through other functions) is not allowed; write it as a loop");
      return true;
    }
    o = origin.call.origin;
  }
  return false;
}

const SourceFile* Checker::fileOf(const FnDecl& fn) const {
  return fn.loc.origin ? sourceOrigin(fn.loc.origin).file : file_;
}

// ------------------------------------------------------------------- finding the calls

namespace {
/// The first call, innermost first, that must become statements before its statement
/// runs. Only what the statement evaluates once, when it runs, is searched; calls found
/// elsewhere (per element, in a while condition) are left for checkCall to report, and
/// nested statements (bodies, branches, a for stage's block) are expanded where they
/// stand, when their own block is checked.
class CallFinder : public MutatingVisitor {
public:
  CallFinder(std::function<FnDecl*(const Expr&)> called, std::function<bool(const FnDecl&)> inlinable)
      : called_(std::move(called)), inlinable_(std::move(inlinable)) {}

  ExprPtr* found = nullptr;
  Pipeline* foundSource = nullptr; // the pipeline whose source the call is, if it is one
  bool foundConditional = false;   // in an operand that runs only when needed (&&, ||, if)

  void statement(Stmt& s) {
    switch (s.kind()) {
    case Stmt::Stream:
    case Stmt::Vector:
    case Stmt::Let:
    case Stmt::Var:
    case Stmt::If:
    case Stmt::ForIn:
    case Stmt::Emit:
    case Stmt::Print:
    case Stmt::Assign:
    case Stmt::Evaluate:
    case Stmt::Array: return walkChildren(s);
    // Not its path: a literal or a param (one with `{…}` in it is reported as an error).
    case Stmt::Write:
    case Stmt::WriteText: return walk(s.as<WriteStmt>()->pipeline);
    // Declarations: nothing in them runs when they do. A param's default is a constant,
    // fixed before anything runs; an order's keys are read per comparison.
    case Stmt::Record:
    case Stmt::Pq:
    case Stmt::Order:
    case Stmt::Param:
    case Stmt::Fn:
    case Stmt::Import:
    case Stmt::Use:
    case Stmt::Memory:
    case Stmt::BlockSize:
    // Statements of their own (expanded where they stand); a while condition runs each
    // round; a `return` that reaches here is misplaced and reported as such.
    case Stmt::Block:
    case Stmt::While:
    case Stmt::Break:
    case Stmt::Continue:
    case Stmt::Return: return;
    }
  }

private:
  std::function<FnDecl*(const Expr&)> called_;
  std::function<bool(const FnDecl&)> inlinable_;
  int conditional_ = 0; // operands entered that run only when needed

  bool visit(ExprPtr& e) override {
    if (found) return false;
    if (auto* b = e->as<BinaryExpr>(); b && kindOf(b->op) == OperatorKind::Logical) {
      walk(b->lhs);
      conditional(b->rhs);
      return false;
    }
    if (auto* i = e->as<IfExpr>()) {
      walk(i->cond);
      conditional(i->then);
      conditional(i->otherwise);
      return false;
    }
    // Arguments first: they run before the call. (A call's `inlined` body is still empty
    // here: sema fills it in when it checks the call, after this.)
    walkChildren(*e);
    FnDecl* fn = found ? nullptr : called_(*e);
    if (fn && !inlinable_(*fn)) {
      found = &e;
      foundConditional = conditional_ > 0;
    }
    return false;
  }
  void conditional(ExprPtr& operand) {
    if (!operand) return;
    ++conditional_;
    walk(operand);
    --conditional_;
  }
  bool visit(PipelinePtr& p) override {
    if (found) return false;
    walkChildren(*p);
    auto* s = p->source ? p->source->as<ExprSource>() : nullptr;
    if (s && found == &s->expr) foundSource = p.get();
    return false;
  }
  bool visit(SourcePtr& s) override {
    if (found) return false;
    switch (s->kind()) {
    // Only the inputs and the count run once; the function (and a join's keys, a
    // generate's body) run per element.
    case Source::Generate: walk(s->as<GenerateSource>()->count); return false;
    case Source::Join: return walkInputs(s->as<JoinSource>()->inputs);
    case Source::Zip: return walkInputs(s->as<ZipSource>()->inputs);
    case Source::Range:
    case Source::Merge:
    case Source::Concat:
    case Source::ExprSrc: return true;
    // A path, a type or a vector's name.
    case Source::Read:
    case Source::ReadText:
    case Source::Scan: return false;
    }
    return false;
  }
  template <class Inputs> bool walkInputs(Inputs& inputs) {
    for (PipelinePtr& input : inputs) walk(input);
    return false;
  }
  bool visit(StagePtr& s) override {
    if (found) return false;
    switch (s->kind()) {
    case Stage::Sort:
    case Stage::Take:
    case Stage::Named: return true; // an argument runs once, as the stage starts
    // Per element; a for stage's statements are checked (and expanded) as a block.
    case Stage::Map:
    case Stage::Filter:
    case Stage::Unique:
    case Stage::Reduce:
    case Stage::For: return false;
    }
    return false;
  }
  // Nested statements are expanded where they stand (see above).
  bool visit(StmtPtr&) override { return false; }
  // A type's array length is a constant.
  bool visit(TypeRefPtr&) override { return false; }
};
} // namespace

// ------------------------------------------------------------------------- statements

void Checker::checkStatements(std::vector<StmtPtr>& body, bool topLevel) {
  for (size_t i = 0; i < body.size();) {
    if (!functions_.empty() && expandCall(body, i)) continue;
    if (topLevel) checkItem(*body[i]);
    else checkStmt(*body[i]);
    ++i;
  }
}

bool Checker::expandCall(std::vector<StmtPtr>& body, size_t& i) {
  CallFinder finder{[this](const Expr& e) { return functionCalled(e); },
                    [this](const FnDecl& fn) { return inlinable(fn); }};
  finder.statement(*body[i]);
  if (!finder.found) return false;
  ExprPtr& slot = *finder.found;
  auto& call = *slot->as<CallExpr>();
  FnDecl& fn = *functionCalled(call);
  auto dropStatement = [&] { // reported; the statement would only repeat the error
    auto empty = std::make_unique<BlockStmt>();
    empty->loc = body[i]->loc;
    body[i] = std::move(empty);
    return false;
  };
  if (finder.foundConditional) {
    error(call.loc, "function '" + fn.name + "' runs as statements before the statement that calls it, whatever the "
                    "'&&', '||' or 'if' around the call decides; call it before (let r = " + fn.name +
                    "(…);) or test in an if statement");
    return dropStatement();
  }

  std::vector<StmtPtr> checked;  // the arguments held in names (checked already)
  std::vector<StmtPtr> expanded; // the body (checked when the loop reaches it)
  bool consumed = false;         // the statement was only the call
  if (!expand(fn, call, body[i].get(), slot, finder.foundSource, checked, expanded, consumed)) return dropStatement();
  const size_t n = checked.size();
  if (consumed) body.erase(body.begin() + static_cast<long>(i));
  std::vector<StmtPtr> inserted = std::move(checked);
  for (StmtPtr& s : expanded) inserted.push_back(std::move(s));
  body.insert(body.begin() + static_cast<long>(i), std::make_move_iterator(inserted.begin()),
              std::make_move_iterator(inserted.end()));
  i += n;
  return true;
}

// ------------------------------------------------------------------------- expansion

bool Checker::callable(const FnDecl& fn, const CallExpr& call) {
  if (recursive(fn, call.loc)) return false;
  if (call.args.size() == fn.params.size()) return true;
  error(call.loc, "function '" + fn.name + "' takes " + std::to_string(fn.params.size()) + " argument" +
                      (fn.params.size() == 1 ? "" : "s") + ", not " + std::to_string(call.args.size()));
  note(fn.loc, "declared here");
  return false;
}

void Checker::startExpansion(const FnDecl& fn, SourceLoc call, std::string& prefix, uint32_t& origin,
                             std::set<std::string>& locals) {
  // The body's names get the function's name, numbered from its second expansion on;
  // its locations remember the call.
  const int number = ++expansions_[&fn];
  prefix = number == 1 ? fn.name : fn.name + "#" + std::to_string(number);
  origin = addSourceOrigin({fileOf(fn), call, fn.name});
  if (!bodyNames_.count(&fn)) bodyNames_[&fn] = bodyNames(fn);
  locals = bodyNames_[&fn];
}

const Type* Checker::resolveParamType(FnParam& p, const std::map<std::string, const Type*>& bound) {
  struct Bind : Cloner {
    const std::map<std::string, const Type*>& bound;
    explicit Bind(const std::map<std::string, const Type*>& b) : bound(b) {}
    TypeRefPtr substituteType(const NamedType& t) override {
      if (t.name.parts.size() != 1) return nullptr;
      auto it = bound.find(t.name.parts[0]);
      if (it == bound.end()) return nullptr;
      auto out = std::make_unique<NamedType>();
      out->loc = t.loc;
      out->name = t.name;
      out->resolved = it->second;
      return out;
    }
  } bind(bound);
  TypeRefPtr copy = bind.type(*p.type);
  const Type* t = resolveType(*copy);
  resolvedTypes_.push_back(std::move(copy)); // array lengths in it point into the copy
  return t;
}

bool Checker::expand(FnDecl& fn, CallExpr& call, Stmt* statement, ExprPtr& slot, Pipeline* source,
                     std::vector<StmtPtr>& checked, std::vector<StmtPtr>& expanded, bool& consumed) {
  const std::string what = "'" + fn.name + "'";
  if (!callable(fn, call)) return false;
  Expander x;
  startExpansion(fn, call.loc, x.prefix, x.origin, x.locals);

  // Each argument: checked here, in the caller's scope, and given to the body by name.
  bool ok = true;
  for (size_t k = 0; k < fn.params.size(); ++k) {
    FnParam& p = fn.params[k];
    ExprPtr& arg = call.args[k];
    const std::string argWhat = "argument " + std::to_string(k + 1) + " ('" + p.name + "') of " + what;
    // A parameter of type T binds T; one of a type that mentions bound parameters is checked.
    const std::string binds = bindsTypeParam(fn, p, x.types);
    const Type* want = !binds.empty() ? nullptr : resolveParamType(p, x.types);
    if (want && want->isError()) return false;
    auto accept = [&](const Type* got, SourceLoc at) {
      if (got->isError()) return false;
      if (!binds.empty()) {
        x.types[binds] = got;
        return true;
      }
      if (got == want) return true;
      error(at, argWhat + " must be " + kindWord(p.kind) + (p.kind == FnParam::Value ? " of type " : " of ") +
                    want->name() + ", not " + (p.kind == FnParam::Value ? "" : "of ") + got->name());
      return false;
    };
    auto* argName = arg->as<NameExpr>();
    Symbol* argSymbol = argName && argName->name.parts.size() == 1 ? lookup(argName->name.parts[0]) : nullptr;
    switch (p.kind) {
    case FnParam::Value: {
      const Type* t = check(*arg, want);
      if (t->isError()) {
        ok = false;
        break;
      }
      if (want && !convert(*arg, want, "as " + argWhat)) {
        ok = false;
        break;
      }
      if (want) t = want;
      else t = finalize(*arg);
      if (!want && (t->kind == Type::Void)) {
        error(arg->loc, argWhat + " must be a value");
        ok = false;
        break;
      }
      accept(t, arg->loc);
      const Type* type = want ? want : t;
      if (constant(*arg)) {
        // A constant (over params) is written into the body, so estimates and array
        // lengths there stay constant: `take k`, `~ n / 2`.
        const Expr* original = arg.get();
        auto copies = std::make_shared<Cloner>();
        x.values[p.name] = [this, original, copies, type](SourceLoc at) {
          auto cast = std::make_unique<CastExpr>();
          cast->loc = at;
          cast->operand = copies->expr(*original);
          auto t = std::make_unique<NamedType>();
          t->loc = at;
          t->name.parts = {type->name()};
          t->resolved = type;
          cast->target = std::move(t);
          return cast;
        };
        keptArguments_.push_back(std::move(arg));
        break;
      }
      auto let = std::make_unique<LetStmt>();
      let->loc = arg->loc;
      let->name = x.prefix + "." + p.name;
      let->init = std::move(arg);
      Symbol sym{Symbol::Let, let->name, let->loc};
      sym.type = type;
      sym.decl = let.get();
      sym.argument = true;
      let->symbol = &declare(std::move(sym));
      const std::string name = let->name;
      x.values[p.name] = [name](SourceLoc at) { return nameExpr(name, at); };
      checked.push_back(std::move(let));
      break;
    }
    case FnParam::Stream: {
      std::string name;
      if (argSymbol && (argSymbol->kind == Symbol::Stream || argSymbol->kind == Symbol::Vector)) {
        name = argSymbol->name;
        if (!accept(argSymbol->type, arg->loc)) ok = false;
      } else {
        // A pipeline: a stream of its own, read where the body reads the parameter.
        auto decl = std::make_unique<StreamDecl>();
        decl->loc = arg->loc;
        decl->name = x.prefix + "." + p.name;
        decl->pipeline = pipelineOf(std::move(arg));
        checkItem(*decl);
        name = decl->name;
        if (!decl->symbol || !accept(decl->symbol->type, decl->loc)) ok = false;
        checked.push_back(std::move(decl));
      }
      x.values[p.name] = [name](SourceLoc at) { return nameExpr(name, at); };
      break;
    }
    case FnParam::Vector:
    case FnParam::Array:
    case FnParam::Queue: {
      const Symbol::Kind kind = p.kind == FnParam::Vector  ? Symbol::Vector
                                : p.kind == FnParam::Array ? Symbol::Array
                                                           : Symbol::Queue;
      if (!argSymbol || argSymbol->kind != kind) {
        error(arg->loc, argWhat + " must name " + kindWord(p.kind) + " (the function works on it in place)");
        ok = false;
        break;
      }
      if (!accept(argSymbol->type, arg->loc)) ok = false;
      const std::string name = argSymbol->name;
      x.values[p.name] = [name](SourceLoc at) { return nameExpr(name, at); };
      break;
    }
    case FnParam::Order: {
      if (!argSymbol || argSymbol->kind != Symbol::Order || !argSymbol->order) {
        error(arg->loc, argWhat + " must name a declared order");
        ok = false;
        break;
      }
      if (!accept(argSymbol->order->type, arg->loc)) ok = false;
      OrderRef ref;
      ref.kind = OrderRef::Named;
      ref.name.parts = {argSymbol->name};
      x.orders[p.name] = ref;
      break;
    }
    }
    if (!ok) break;
  }
  if (!ok) return false;
  for (const auto& [name, loc] : fn.typeParams)
    if (!x.types.count(name)) {
      error(call.loc, "cannot tell what '" + name + "' is in this call of " + what +
                          ": no argument is of type " + name + " (or a stream, vector or order of it)");
      return false;
    }

  // The result: a vector the body declares and returns becomes the caller's vector
  // `v` when the call is all of `vector v = f(…);`.
  auto* vectorDecl = statement->as<VectorDecl>();
  Pipeline* returned = fn.exprBody ? fn.exprBody.get()
                       : (!fn.body.empty() && fn.body.back()->as<ReturnStmt>() ? fn.body.back()->as<ReturnStmt>()->value.get()
                                                                                : nullptr);
  Expr* returnedExpr = returned ? plainExpr(*returned) : nullptr;
  auto* returnedName = returnedExpr ? returnedExpr->as<NameExpr>() : nullptr;
  if (fn.result && fn.result->kind == FnParam::Vector && vectorDecl && vectorDecl->pipeline &&
      source == vectorDecl->pipeline.get() && source->stages.empty() && returnedName &&
      returnedName->name.parts.size() == 1 && x.locals.count(returnedName->name.parts[0])) {
    x.renamed[returnedName->name.parts[0]] = vectorDecl->name;
    consumed = true;
  }

  PipelinePtr result;
  if (fn.exprBody) {
    result = x.pipeline(*fn.exprBody);
  } else {
    expanded = x.stmts(fn.body);
    if (!expanded.empty() && expanded.back()->as<ReturnStmt>()) {
      result = std::move(expanded.back()->as<ReturnStmt>()->value);
      expanded.pop_back();
    }
  }
  for (StmtPtr& s : expanded) noteChangedVectors(*s);

  if (!fn.result || !result) {
    if (fn.result) return false; // reported by declareFunction
    if (!statement->as<ExprStmt>() || statement->as<ExprStmt>()->expr.get() != slot.get()) {
      error(call.loc, "function " + what + " returns nothing; call it as a statement: " + fn.name + "(…);");
      return false;
    }
    consumed = true;
    return true;
  }
  if (consumed) return true;
  switch (fn.result->kind) {
  case FnParam::Stream:
    if (source) { // the call starts a pipeline: the body's pipeline goes in its place
      std::vector<StagePtr> after = std::move(source->stages);
      source->source = std::move(result->source);
      source->stages = std::move(result->stages);
      for (StagePtr& s : after) source->stages.push_back(std::move(s));
    } else {
      auto arg = std::make_unique<PipelineArgExpr>();
      arg->loc = call.loc;
      arg->pipeline = std::move(result);
      slot = std::move(arg);
    }
    return true;
  case FnParam::Vector: {
    Expr* e = plainExpr(*result);
    auto* n = e ? e->as<NameExpr>() : nullptr;
    if (!n) { // a pipeline: materialized into a vector of the call's own
      auto decl = std::make_unique<VectorDecl>();
      decl->loc = call.loc;
      decl->name = x.prefix + ".result";
      decl->pipeline = std::move(result);
      slot = nameExpr(decl->name, call.loc);
      expanded.push_back(std::move(decl));
      return true;
    }
    slot = nameExpr(n->name.str(), call.loc);
    return true;
  }
  default: {
    Expr* e = plainExpr(*result);
    if (!e) {
      error(result->loc, "function " + what + " returns a value, not a pipeline");
      return false;
    }
    auto* src = result->source->as<ExprSource>();
    slot = std::move(src->expr);
    return true;
  }
  }
}

// ------------------------------------------------------------ calls inlined in place

const Type* Checker::checkInlinedCall(CallExpr& e, FnDecl& fn) {
  const std::string what = "'" + fn.name + "'";
  if (!inlinable(fn)) {
    error(e.loc, "function " + what + " runs as statements (it has a block body, takes or returns streams, "
                 "vectors, arrays, orders or priority queues, or aggregates a stream), so it is called where a statement runs — not per element in a "
                 "lambda or stage, nor in a while condition; call it before and use its result");
    return out_.types.error();
  }
  if (!callable(fn, e)) return out_.types.error();
  Expander x;
  startExpansion(fn, e.loc, x.prefix, x.origin, x.locals);
  std::vector<Symbol> params;
  for (size_t k = 0; k < fn.params.size(); ++k) {
    FnParam& p = fn.params[k];
    const std::string binds = bindsTypeParam(fn, p, x.types);
    const Type* want = !binds.empty() ? nullptr : resolveParamType(p, x.types);
    if (want && want->isError()) return out_.types.error();
    const Type* t = check(*e.args[k], want);
    if (t->isError()) return t;
    const std::string argWhat = "as argument " + std::to_string(k + 1) + " ('" + p.name + "') of " + what;
    if (want && !convert(*e.args[k], want, argWhat)) return out_.types.error();
    if (!want) {
      t = finalize(*e.args[k]);
      x.types[binds] = t;
    }
    Symbol sym{Symbol::Let, x.prefix + "." + p.name, e.args[k]->loc};
    sym.type = want ? want : t;
    params.push_back(std::move(sym));
    const std::string name = x.prefix + "." + p.name;
    x.values[p.name] = [name](SourceLoc at) { return nameExpr(name, at); };
  }
  for (const auto& [name, loc] : fn.typeParams)
    if (!x.types.count(name)) {
      error(e.loc, "cannot tell what '" + name + "' is in this call of " + what + ": no argument is of type " + name);
      return out_.types.error();
    }
  const Type* result = resolveParamType(*fn.result, x.types);
  if (result->isError()) return result;
  Expr* body = plainExpr(*fn.exprBody);
  if (!body) {
    error(fn.exprBody->loc, "function " + what + " returns a value, not a pipeline");
    return out_.types.error();
  }
  e.inlined = x.expr(*body);
  pushScope();
  for (Symbol& s : params) e.params.push_back(&declare(std::move(s)));
  const Type* t = check(*e.inlined, result);
  popScope();
  if (t->isError()) return t;
  if (!convert(*e.inlined, result, "as the result of " + what)) return out_.types.error();
  return result;
}

void Checker::noteChangedVectors(const Stmt& s) {
  // Every `v.push(…)`, `v.clear()`, `v = …` by name, and every vector given to a function
  // (which may push into it). A shadowing local only makes the answer more cautious: a
  // vector named here is never trusted to be in order.
  struct Finder : Visitor {
    std::set<std::string>& names;
    Checker& checker;
    Finder(std::set<std::string>& n, Checker& c) : names(n), checker(c) {}
    bool visit(const Expr& e) override {
      if (auto* m = e.as<MethodCallExpr>())
        if (auto* n = m->object->as<NameExpr>(); n && (m->method == "push" || m->method == "clear"))
          names.insert(n->name.str());
      if (const FnDecl* fn = checker.functionCalled(e))
        for (size_t k = 0; k < fn->params.size() && k < e.as<CallExpr>()->args.size(); ++k)
          if (auto* n = e.as<CallExpr>()->args[k]->as<NameExpr>(); n && fn->params[k].kind == FnParam::Vector)
            names.insert(n->name.str());
      return true;
    }
    bool visit(const Stmt& st) override {
      if (auto* a = st.as<AssignStmt>())
        if (auto* n = a->target->as<NameExpr>()) names.insert(n->name.str());
      return true;
    }
  } finder(changedVectors_, *this);
  finder.walk(s);
}

} // namespace flow::sema
