// Expressions: names, operators, calls, methods, records and arrays, with Flow's rules for
// literals (they take the type their context needs if they fit) and conversions (only
// widening is implicit; everything else needs `as`).
#include "sema/checker.hpp"

#include <cmath>

namespace flow::sema {

using namespace flow::ast;
using ast::BinaryOp;
using ast::Builtin;
using ast::OperatorKind;
using ast::UnaryOp;
using ast::BuiltinInfo;
using ast::Method;
using ast::MethodInfo;

namespace {
bool is(BinaryOp op, OperatorKind kind) { return kindOf(op) == kind; }

std::string plural(size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }
} // namespace

std::optional<ConstValue> Checker::constant(const Expr& e, std::string* whyNot) {
  return evaluate(e, [](const Symbol* s) { return s->kind == Symbol::Param ? s->value : std::nullopt; }, whyNot);
}

// ------------------------------------------------------------------------- conversions

void Checker::materialize(Expr& e, const Type* to) {
  if (!e.type || !e.type->isUntyped()) return;
  e.type = to;
  if (auto* u = e.as<UnaryExpr>()) materialize(*u->operand, to);
  if (auto* b = e.as<BinaryExpr>()) {
    if (is(b->op, OperatorKind::Shift)) materialize(*b->lhs, to);
    else if (is(b->op, OperatorKind::Arithmetic) || is(b->op, OperatorKind::Bitwise)) {
      materialize(*b->lhs, to);
      materialize(*b->rhs, to);
    }
  }
  if (auto* c = e.as<CallExpr>())
    for (ExprPtr& a : c->args) materialize(*a, to);
}

const Type* Checker::finalize(Expr& e) {
  if (!e.type || !e.type->isUntyped()) return e.type;
  if (e.type->kind == Type::FloatLit) {
    materialize(e, out_.types.scalar(Type::F64));
  } else {
    auto v = constant(e);
    bool negative = v && v->kind == ConstValue::Int && v->i < 0;
    const Type* t = out_.types.scalar(negative ? Type::I64 : Type::U64);
    if (v && v->kind == ConstValue::Int && (v->i > static_cast<__int128>(UINT64_MAX) || v->i < INT64_MIN)) {
      error(e.loc, "the constant " + v->str() + " does not fit in 64 bits");
      e.type = out_.types.error();
      return e.type;
    }
    materialize(e, t);
  }
  return e.type;
}

bool Checker::convert(Expr& e, const Type* to, const std::string& context) {
  const Type* from = e.type;
  if (!from || from->isError() || to->isError()) return false;
  if (from == to) return true;
  if (from->isUntyped() && to->isNumeric() && !to->isUntyped()) {
    std::string why;
    auto v = constant(e, &why);
    if (!v) { // an untyped expression is built from literals only, so this is a division by zero or such
      error(e.loc, "cannot compute this constant: " + why);
      return false;
    }
    if (to->isInteger()) {
      __int128 value = v->i;
      if (v->kind == ConstValue::Float) {
        if (v->f != std::floor(v->f) || !std::isfinite(v->f)) {
          error(e.loc, v->str() + " is not a whole number, so it cannot be " + to->name() + " " + context);
          return false;
        }
        value = static_cast<__int128>(v->f);
      }
      __int128 lo = to->isSigned() ? -(static_cast<__int128>(1) << (to->bits() - 1)) : 0;
      __int128 hi = to->isSigned() ? (static_cast<__int128>(1) << (to->bits() - 1)) - 1
                                   : (static_cast<__int128>(1) << to->bits()) - 1;
      if (value < lo || value > hi) {
        error(e.loc, "the constant " + ConstValue::integer(value).str() + " does not fit in " + to->name() + " " + context);
        return false;
      }
    }
    materialize(e, to);
    return true;
  }
  if (from->isUntyped()) finalize(e);
  from = e.type;
  if (from == to || widens(from, to)) return true;
  std::string hint;
  if (from->isNumeric() && to->isNumeric()) hint = "; convert it with 'as " + to->name() + "'";
  error(e.loc, "cannot use a value of type " + from->name() + " as " + to->name() + " " + context + hint);
  return false;
}

const Type* Checker::unify(Expr& lhs, Expr& rhs, const std::string& op, SourceLoc loc) {
  const Type* l = lhs.type;
  const Type* r = rhs.type;
  if (l->isError() || r->isError()) return nullptr;
  if (l->isUntyped() && r->isUntyped())
    return (l->kind == Type::FloatLit || r->kind == Type::FloatLit) ? out_.types.scalar(Type::FloatLit) : l;
  if (l->isUntyped()) return convert(lhs, r, "in '" + op + "'") ? r : nullptr;
  if (r->isUntyped()) return convert(rhs, l, "in '" + op + "'") ? l : nullptr;
  if (l == r) return l;
  if (widens(l, r)) return r;
  if (widens(r, l)) return l;
  std::string hint = l->isNumeric() && r->isNumeric() ? "; convert one side with 'as'" : "";
  error(loc, "'" + op + "' between " + l->name() + " and " + r->name() + hint);
  return nullptr;
}

// -------------------------------------------------------------------------- dispatcher

// `"text"` and `"{x} and {y}"` are str values: each interpolated value shown as print
// shows it. The text must fit the program's str capacity (interpolations are checked
// when the program runs).
const Type* Checker::checkStringLit(StringLitExpr& e) {
  checkInterpolations(e.literal, "a string");
  const Type* str = out_.types.scalar(Type::Str);
  if (!e.literal.isInterpolated() && e.literal.text().size() > str->length) {
    error(e.loc, "this string has " + std::to_string(e.literal.text().size()) + " bytes, more than the " +
                     std::to_string(str->length) + " a str holds (flowc --max-str BYTES)");
    return out_.types.error();
  }
  return str;
}

const Type* Checker::check(Expr& e, const Type* expected) {
  const Type* t = out_.types.error();
  switch (e.kind()) {
  case Expr::IntLit: t = out_.types.scalar(Type::IntLit); break;
  case Expr::SizeLit: t = out_.types.scalar(Type::IntLit); break;
  case Expr::FloatLit: t = out_.types.scalar(Type::FloatLit); break;
  case Expr::BoolLit: t = out_.types.scalar(Type::Bool); break;
  case Expr::StringLit: t = checkStringLit(*e.as<StringLitExpr>()); break;
  case Expr::Name: t = checkName(*e.as<NameExpr>()); break;
  case Expr::Unary: t = checkUnary(*e.as<UnaryExpr>(), expected); break;
  case Expr::Binary: t = checkBinary(*e.as<BinaryExpr>(), expected); break;
  case Expr::Cast: t = checkCast(*e.as<CastExpr>()); break;
  case Expr::Field: t = checkField(*e.as<FieldExpr>()); break;
  case Expr::Index: t = checkIndex(*e.as<IndexExpr>()); break;
  case Expr::MethodCall: t = checkMethod(*e.as<MethodCallExpr>()); break;
  case Expr::Call: t = checkCall(*e.as<CallExpr>(), expected); break;
  case Expr::RecordInit: t = checkRecordInit(*e.as<RecordInitExpr>()); break;
  case Expr::ArrayRepeat:
  case Expr::ArrayList: t = checkArray(e, expected); break;
  case Expr::PipelineArg:
    error(e.loc, "a pipeline can only be the argument of count, sum, min or max");
    break;
  case Expr::IfElse: t = checkIfExpr(*e.as<IfExpr>(), expected); break;
  }
  e.type = t;
  return t;
}

const Type* Checker::checkName(NameExpr& e) {
  if (e.name.parts.size() > 1) {
    error(e.loc, "'" + e.name.str() + "' is not a value" +
                     (e.name.parts[0] == "cpp" ? " (imported C++ functions are called: " + e.name.str() + "(…))" : ""));
    return out_.types.error();
  }
  Symbol* s = lookup(e.name.str());
  if (!s) {
    auto later = laterValues_.find(e.name.str());
    if (resolvingTypes_ && later != laterValues_.end())
      error(e.loc, "a type is fixed when the script compiles, so this must be a constant; '" + e.name.str() +
                       "' is a " + later->second + ", known only when the program runs");
    else if (later != laterValues_.end())
      error(e.loc, "'" + e.name.str() + "' is used before its declaration");
    else
      error(e.loc, "unknown name '" + e.name.str() + "'" + suggest(e.name.str(), namesInScope()));
    return out_.types.error();
  }
  e.symbol = s;
  if (s->kind == Symbol::Param && s->type && s->type->kind == Type::Path) {
    error(e.loc, "'" + s->name + "' is a path param: it names a file for read(…), read_text(…), write … to and "
                 "write_text … to (and print shows it), and is not a value");
    return out_.types.error();
  }
  switch (s->kind) {
  case Symbol::Param:
  case Symbol::Let:
  case Symbol::Var:
  case Symbol::LoopVar:
  case Symbol::LambdaVar:
  case Symbol::Index:
  case Symbol::Field: return s->type;
  case Symbol::Stream:
  case Symbol::Vector:
    error(e.loc, "'" + s->name + "' is a " + s->kindName() + ", not a value; read it in a pipeline (for x in " + s->name +
                     " { … }) or aggregate it (count(" + s->name + "))");
    break;
  case Symbol::Queue:
    error(e.loc, "'" + s->name + "' is a priority queue, not a value; use its methods (" + s->name + ".top(), …)");
    break;
  case Symbol::Array:
    error(e.loc, "'" + s->name + "' is an array, not a value; use its elements (" + s->name + "[i]) or its methods (" +
                     s->name + ".size(), " + s->name + ".fill(v))");
    break;
  case Symbol::Builtin:
  case Symbol::CppFunction:
    error(e.loc, "'" + s->name + "' is a function; call it: " + s->name + "(…)");
    break;
  default:
    error(e.loc, "'" + s->name + "' is a " + s->kindName() + ", not a value");
    break;
  }
  return out_.types.error();
}

const Type* Checker::checkUnary(UnaryExpr& e, const Type* expected) {
  const Type* t = check(*e.operand, expected);
  if (t->isError()) return t;
  if (e.op == UnaryOp::Not) {
    if (t->kind != Type::Bool) {
      error(e.loc, "'!' needs a bool, not " + t->name());
      return out_.types.error();
    }
    return t;
  }
  if (e.op == UnaryOp::BitNot) {
    if (!t->isInteger()) {
      error(e.loc, "'~' needs an integer, not " + t->name());
      return out_.types.error();
    }
    return t;
  }
  if (!t->isNumeric()) {
    error(e.loc, "'-' needs a number, not " + t->name());
    return out_.types.error();
  }
  if (t->isUnsigned()) {
    error(e.loc, "cannot negate a value of unsigned type " + t->name() + "; convert it to a signed type with 'as' first");
    return out_.types.error();
  }
  return t;
}

const Type* Checker::checkBinary(BinaryExpr& e, const Type* expected) {
  const std::string op = spelling(e.op); // for messages
  const BinaryOp id = e.op;
  bool arithmetic = is(id, OperatorKind::Arithmetic) || is(id, OperatorKind::Bitwise);
  const Type* l = check(*e.lhs, arithmetic ? expected : nullptr);
  const Type* r = check(*e.rhs, arithmetic ? expected : nullptr);
  if (l->isError() || r->isError()) return out_.types.error();

  if (is(id, OperatorKind::Logical)) {
    for (Expr* side : {e.lhs.get(), e.rhs.get()})
      if (side->type->kind != Type::Bool) {
        error(side->loc, "'" + op + "' needs bool operands, not " + side->type->name());
        return out_.types.error();
      }
    return out_.types.scalar(Type::Bool);
  }
  if (is(id, OperatorKind::Shift)) {
    if (!l->isInteger() || !r->isInteger()) {
      error(e.loc, "'" + op + "' needs integers, not " + (l->isInteger() ? r : l)->name());
      return out_.types.error();
    }
    finalize(*e.rhs);
    if (l->isUntyped() && expected && expected->isInteger() && !expected->isUntyped()) {
      if (!convert(*e.lhs, expected, "in '" + op + "'")) return out_.types.error();
      return expected;
    }
    if (auto c = e.rhs->type->isError() ? std::nullopt : evaluate(*e.rhs, [](const Symbol*) { return std::nullopt; });
        c && c->kind == ConstValue::Int) {
      unsigned bits = l->isUntyped() ? 64 : l->bits();
      if (c->i < 0 || c->i >= bits) {
        error(e.rhs->loc, "shift count " + c->str() + " is out of range for " + (l->isUntyped() ? "u64" : l->name()) +
                              " (0 to " + std::to_string(bits - 1) + ")");
        return out_.types.error();
      }
    }
    return e.lhs->type;
  }
  const Type* t = unify(*e.lhs, *e.rhs, op, e.loc);
  if (!t) return out_.types.error();
  if (arithmetic && t->isStr() && id == BinaryOp::Add) return t; // concatenation
  if (arithmetic) {
    bool integerOnly = id == BinaryOp::Rem || is(id, OperatorKind::Bitwise);
    if (!t->isNumeric() || (integerOnly && !t->isInteger())) {
      error(e.loc, "'" + op + "' needs " + (integerOnly ? "integers" : "numbers") + ", not " + t->name());
      return out_.types.error();
    }
    if ((id == BinaryOp::Div || id == BinaryOp::Rem) && t->isInteger()) {
      // Only a literal zero: a param is known only when the program runs.
      auto divisor = evaluate(*e.rhs, [](const Symbol*) { return std::nullopt; });
      if (divisor && divisor->kind == ConstValue::Int && divisor->i == 0) {
        error(e.rhs->loc, "division by zero");
        return out_.types.error();
      }
    }
    return t;
  }
  // Comparisons: both sides of one type; the result is bool.
  if (t->isUntyped()) {
    finalize(*e.lhs);
    finalize(*e.rhs);
    t = e.lhs->type;
  }
  if (is(id, OperatorKind::Relational) && !t->isOrderable()) {
    error(e.loc, "'" + op + "' cannot compare values of type " + t->name() +
                     (t->kind == Type::Record ? "; compare their fields, or sort them by an order" : ""));
    return out_.types.error();
  }
  if (is(id, OperatorKind::Equality) && t->kind == Type::Record && t->record->imported) {
    error(e.loc, "'" + op + "' cannot compare values of the imported type " + t->name() + "; compare their fields");
    return out_.types.error();
  }
  if (is(id, OperatorKind::Equality) && (t->kind == Type::Void)) {
    error(e.loc, "'" + op + "' cannot compare values of type " + t->name());
    return out_.types.error();
  }
  return out_.types.scalar(Type::Bool);
}

const Type* Checker::checkCast(CastExpr& e) {
  const Type* to = resolveType(*e.target);
  const Type* from = check(*e.operand);
  if (to->isError() || from->isError()) return out_.types.error();
  finalize(*e.operand);
  from = e.operand->type;
  bool ok = from == to || (from->isNumeric() && to->isNumeric()) || (from->kind == Type::Bool && to->isNumeric());
  if (!ok) {
    std::string hint = to->kind == Type::Bool && from->isNumeric() ? "; compare it instead (x != 0)" : "";
    error(e.loc, "cannot convert " + from->name() + " to " + to->name() + " with 'as'" + hint);
    return out_.types.error();
  }
  return to;
}

const Type* Checker::checkField(FieldExpr& e) {
  const Type* t = check(*e.object);
  if (t->isError()) return t;
  if (t->kind != Type::Record) {
    error(e.fieldLoc, "'" + e.field + "' is not a field: " + t->name() + " has no fields");
    return out_.types.error();
  }
  const FieldInfo* f = t->record->field(e.field);
  if (!f) {
    std::vector<std::string> names;
    for (const FieldInfo& fi : t->record->fields) names.push_back(fi.name);
    error(e.fieldLoc, "record " + t->record->name + " has no field '" + e.field + "'" + suggest(e.field, names));
    return out_.types.error();
  }
  if (!f->accessible) {
    error(e.fieldLoc, "field '" + e.field + "' of " + t->record->name + " is not public in C++");
    return out_.types.error();
  }
  return f->type;
}

Symbol* Checker::indexedContainer(Expr& object) {
  auto* n = object.as<NameExpr>();
  if (!n || n->name.parts.size() != 1) return nullptr;
  Symbol* s = lookup(n->name.str());
  if (!s || (s->kind != Symbol::Array && s->kind != Symbol::Vector)) return nullptr;
  n->symbol = s;
  n->type = s->type;
  return s;
}

const Type* Checker::checkIfExpr(IfExpr& e, const Type* expected) {
  const Type* c = check(*e.cond);
  bool ok = !c->isError();
  if (ok && c->kind != Type::Bool) {
    error(e.cond->loc, "a condition must be a bool, not " + c->name());
    ok = false;
  }
  const Type* a = check(*e.then, expected);
  if (!e.otherwise) return out_.types.error(); // reported by the parser
  const Type* b = check(*e.otherwise, expected);
  if (!ok || a->isError() || b->isError()) return out_.types.error();
  for (Expr* arm : {e.then.get(), e.otherwise.get()})
    if (arm->type->kind == Type::Void) {
      error(arm->loc, "an arm of an 'if' expression needs a value, but this expression has none");
      return out_.types.error();
    }
  if (a->isUntyped() && b->isUntyped()) {
    // Two literals: the type the context expects, else what a literal defaults to (f64,
    // i64 if an arm is negative, u64), so the arms agree.
    const Type* to = expected && expected->isNumeric() && !expected->isUntyped() ? expected : nullptr;
    if (!to) {
      bool negative = false;
      for (Expr* arm : {e.then.get(), e.otherwise.get()})
        if (auto v = constant(*arm); v && v->kind == ConstValue::Int && v->i < 0) negative = true;
      to = out_.types.scalar(a->kind == Type::FloatLit || b->kind == Type::FloatLit ? Type::F64
                             : negative                                               ? Type::I64
                                                                                      : Type::U64);
    }
    bool fits = convert(*e.then, to, "in an arm of 'if'");
    fits = convert(*e.otherwise, to, "in an arm of 'if'") && fits;
    return fits ? to : out_.types.error();
  }
  if (a->isUntyped()) return convert(*e.then, b, "in an arm of 'if' (the other arm is " + b->name() + ")") ? b : out_.types.error();
  if (b->isUntyped()) return convert(*e.otherwise, a, "in an arm of 'if' (the other arm is " + a->name() + ")") ? a : out_.types.error();
  if (a == b) return a;
  if (widens(a, b) && convert(*e.then, b, "in an arm of 'if'")) return b;
  if (widens(b, a) && convert(*e.otherwise, a, "in an arm of 'if'")) return a;
  error(e.loc, "the arms of this 'if' have different types, " + a->name() + " and " + b->name() +
                   (a->isNumeric() && b->isNumeric() ? "; convert one with 'as'" : ""));
  return out_.types.error();
}

const Type* Checker::checkIndex(IndexExpr& e) {
  if (Symbol* s = indexedContainer(*e.object)) {
    // An element of an in-memory array or of an external vector: any u64 index, checked
    // when the program runs.
    const Type* i = check(*e.index, out_.types.scalar(Type::U64));
    if (s->type->isError() || i->isError()) return out_.types.error();
    if (!i->isInteger() || i->isSigned()) {
      error(e.index->loc, "an index of " + std::string(s->kind == Symbol::Array ? "array '" : "vector '") + s->name +
                              "' must be an unsigned integer, not " + i->name() +
                              (i->isNumeric() ? " (convert it with 'as u64')" : ""));
      return out_.types.error();
    }
    if (!convert(*e.index, out_.types.scalar(Type::U64), "as an index")) return out_.types.error();
    if (lambdaDepth_ > 0 && s->kind == Symbol::Vector) {
      error(e.loc, "'" + s->name + "[…]' reads an external vector through its cache; map and filter cannot (use a 'for' stage)");
      return out_.types.error();
    }
    return s->type;
  }
  const Type* t = check(*e.object);
  const Type* i = check(*e.index, out_.types.scalar(Type::U64));
  if (t->isError() || i->isError()) return out_.types.error();
  if (t->isStr()) { // a byte, checked against the length when the program runs
    if (!i->isInteger() || i->isSigned()) {
      error(e.index->loc, "an index of a str must be an unsigned integer, not " + i->name());
      return out_.types.error();
    }
    if (!convert(*e.index, out_.types.scalar(Type::U64), "as an index")) return out_.types.error();
    return out_.types.scalar(Type::U8);
  }
  if (t->kind != Type::Array) {
    error(e.loc, t->name() + " cannot be indexed; only arrays, vectors and strings can");
    return out_.types.error();
  }
  if (!i->isInteger()) {
    error(e.index->loc, "an index must be an integer, not " + i->name());
    return out_.types.error();
  }
  finalize(*e.index);
  if (auto v = constant(*e.index); v && v->kind == ConstValue::Int && (v->i < 0 || v->i >= static_cast<__int128>(t->length))) {
    error(e.index->loc, "index " + v->str() + " is out of range for " + t->name());
    return out_.types.error();
  }
  return t->element;
}

bool Checker::argumentCount(CallExpr& e, size_t min, size_t max) {
  if (e.args.size() >= min && e.args.size() <= max) return true;
  std::string expected = min == max ? plural(min, "argument") : std::to_string(min) + " or " + plural(max, "argument");
  error(e.loc, "'" + e.callee.str() + "' takes " + expected + ", but " + std::to_string(e.args.size()) +
                   (e.args.size() == 1 ? " was" : " were") + " given");
  return false;
}

const Type* Checker::checkMethod(MethodCallExpr& e) {
  auto* name = e.object->as<NameExpr>();
  Symbol* s = name && name->name.parts.size() == 1 ? lookup(name->name.str()) : nullptr;
  if (s && s->kind == Symbol::Array) {
    // An array's methods: size() and fill(v).
    name->symbol = s;
    name->type = s->type;
    e.container = s;
    const bool fill = e.method == "fill";
    if (!fill && e.method != "size") {
      error(e.methodLoc, "array '" + s->name + "' has no method '" + e.method + "'; its methods are size and fill");
      return out_.types.error();
    }
    const size_t args = fill ? 1 : 0;
    if (e.args.size() != args) {
      error(e.methodLoc, "'" + e.method + "' takes " + plural(args, "argument") + ", but " + std::to_string(e.args.size()) +
                             (e.args.size() == 1 ? " was" : " were") + " given");
      return out_.types.error();
    }
    if (fill) {
      if (s->type->isError() || check(*e.args[0], s->type)->isError()) return out_.types.error();
      if (!convert(*e.args[0], s->type, "in '" + s->name + ".fill'")) return out_.types.error();
      if (lambdaDepth_ > 0) {
        error(e.methodLoc, "'" + s->name + ".fill()' changes the array; map and filter must not change anything (use a 'for' stage)");
        return out_.types.error();
      }
      e.methodId = Method::Fill;
      return out_.types.scalar(Type::Void);
    }
    e.methodId = Method::Size;
    return out_.types.scalar(Type::U64);
  }
  if (!s || (s->kind != Symbol::Queue && s->kind != Symbol::Vector)) {
    const bool value = !s || s->kind == Symbol::Let || s->kind == Symbol::Var || s->kind == Symbol::LoopVar ||
                       s->kind == Symbol::LambdaVar;
    const Type* t = value ? check(*e.object) : nullptr;
    if (t && t->isError()) return t;
    if (t && t->isStr()) return checkStrMethod(e, /*asLoopSource=*/false);
    if (s && t) t = nullptr; // a named value of another type: the message names it
    std::string what = s ? "'" + s->name + "' is a " + s->kindName() : "this is a value of type " + t->name();
    error(e.methodLoc, what + ", which has no methods; '." + e.method + "()' needs a priority queue or a vector");
    return out_.types.error();
  }
  name->symbol = s;
  name->type = s->type;
  bool queue = s->kind == Symbol::Queue;
  e.container = s;
  const Type* element = s->type;
  const Type* u64 = out_.types.scalar(Type::U64);
  const Type* boolean = out_.types.scalar(Type::Bool);
  const Type* none = out_.types.scalar(Type::Void);
  std::vector<const MethodInfo*> methods; // of this kind of container
  for (const MethodInfo& m : ast::methods())
    if (queue ? m.ofQueue : m.ofVector) methods.push_back(&m);
  for (const MethodInfo* m : methods) {
    if (e.method != m->name) continue;
    if (e.args.size() != m->args) {
      error(e.methodLoc, "'" + e.method + "' takes " + plural(m->args, "argument") + ", but " +
                             std::to_string(e.args.size()) + (e.args.size() == 1 ? " was" : " were") + " given");
      return out_.types.error();
    }
    if (m->args == 1) {
      if (element->isError()) return out_.types.error();
      check(*e.args[0], element);
      if (!convert(*e.args[0], element, "in '" + s->name + "." + e.method + "'")) return out_.types.error();
    }
    if (lambdaDepth_ > 0 && m->changes) {
      error(e.methodLoc, "'" + s->name + "." + e.method + "()' changes the " + s->kindName() +
                             "; map and filter must not change anything (use a 'for' stage)");
      return out_.types.error();
    }
    e.methodId = m->id;
    switch (m->id) {
    case Method::Top:
    case Method::Back: return element;
    case Method::Empty: return boolean;
    case Method::Size: return u64;
    case Method::Push:
    case Method::Pop:
    case Method::Clear:
    case Method::Fill: return none;
    case Method::PopBelow:
      error(e.methodLoc, "'" + s->name + ".pop_below(limit)' gives the queue's items before the limit one by one: "
                             "start a pipeline with it (`for x in " + s->name + ".pop_below(limit) { … }`)");
      return out_.types.error();
    }
  }
  std::string list;
  for (size_t i = 0; i < methods.size(); ++i)
    list += std::string(i ? (i + 1 == methods.size() ? " and " : ", ") : "") + methods[i]->name;
  error(e.methodLoc, std::string(queue ? "priority queue '" : "vector '") + s->name + "' has no method '" + e.method +
                         "'; its methods are " + list);
  return out_.types.error();
}

const Type* Checker::checkStrMethod(MethodCallExpr& e, bool asLoopSource) {
  std::vector<std::string> names;
  for (const ast::StrMethodInfo& m : ast::strMethods()) names.push_back(m.name);
  const std::optional<ast::StrMethod> id = ast::findStrMethod(e.method);
  if (!id) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += std::string(i ? ", " : "") + names[i];
    error(e.methodLoc, "str has no method '" + e.method + "'" + suggest(e.method, names) + "; its methods are " + list);
    return out_.types.error();
  }
  const ast::StrMethodInfo& m = ast::info(*id);
  const size_t want = std::char_traits<char>::length(m.arguments);
  if (e.args.size() != want) {
    error(e.methodLoc, "'" + e.method + "' takes " + plural(want, "argument") + ", but " + std::to_string(e.args.size()) +
                           (e.args.size() == 1 ? " was" : " were") + " given");
    return out_.types.error();
  }
  bool ok = true;
  for (size_t i = 0; i < want; ++i) {
    const Type* param = out_.types.scalar(m.arguments[i] == 's' ? Type::Str : Type::U64);
    const Type* arg = check(*e.args[i], param);
    ok = !arg->isError() && convert(*e.args[i], param, "as argument " + std::to_string(i + 1) + " of '" + e.method + "'") && ok;
  }
  if (!ok) return out_.types.error();
  e.strMethod = id;
  switch (m.result) {
  case ast::StrResult::u64: return out_.types.scalar(Type::U64);
  case ast::StrResult::i64: return out_.types.scalar(Type::I64);
  case ast::StrResult::boolean: return out_.types.scalar(Type::Bool);
  case ast::StrResult::str: return out_.types.scalar(Type::Str);
  case ast::StrResult::pieces:
    if (asLoopSource) return out_.types.scalar(Type::Str);
    error(e.methodLoc, "'" + e.method + "()' gives the pieces of a str one by one: loop over them with `for w in s." +
                           e.method + "(" + (want ? "sep" : "") + ") { … }`");
    return out_.types.error();
  }
  return out_.types.error();
}

const Type* Checker::checkAggregate(CallExpr& e) {
  const std::string name = e.callee.str();
  Expr& arg = *e.args[0];
  const Type* element = nullptr;
  if (auto* p = arg.as<PipelineArgExpr>()) {
    element = checkPipeline(*p->pipeline, name);
  } else if (auto* n = arg.as<NameExpr>(); n && n->name.parts.size() == 1 && lookup(n->name.str()) &&
                                           (lookup(n->name.str())->kind == Symbol::Stream ||
                                            lookup(n->name.str())->kind == Symbol::Vector)) {
    Symbol* s = lookup(n->name.str());
    n->symbol = s;
    consume(*s, n->loc, name);
    element = s->type;
  } else {
    error(arg.loc, "'" + name + "' takes a stream, vector or pipeline");
    return out_.types.error();
  }
  arg.type = element;
  if (!element || element->isError()) return out_.types.error();
  if (e.builtin == Builtin::Count) return out_.types.scalar(Type::U64);
  if (e.builtin == Builtin::Sum) {
    if (!element->isNumeric()) {
      error(arg.loc, "'sum' adds numbers; this stream holds " + element->name());
      return out_.types.error();
    }
    // Sums are accumulated in the widest type of the element's kind, so they rarely overflow.
    return out_.types.scalar(element->isFloat() ? Type::F64 : element->isSigned() ? Type::I64 : Type::U64);
  }
  if (!element->isOrderable()) {
    error(arg.loc, "'" + name + "' needs elements with an order; this stream holds " + element->name());
    return out_.types.error();
  }
  return element;
}

void Checker::unknownFunction(const CallExpr& e) {
  const std::string name = e.callee.str();
  // The nearest of the builtins and the script's functions, its modules' too
  // (`graph.dedupe`: did you mean 'graph.dedup'?).
  std::vector<std::string> names;
  for (const BuiltinInfo& b : ast::builtins()) names.push_back(b.name);
  for (const auto& [fn, decl] : functions_) names.push_back(fn);
  error(e.loc, "unknown function '" + name + "'" + suggest(name, names) +
                   " (imported C++ functions are called as cpp::name(…))");
}

const Type* Checker::checkCall(CallExpr& e, const Type* expected) {
  const std::string name = e.callee.str();
  if (e.callee.parts.size() > 1) return checkCppCall(e);
  if (ast::FnDecl* fn = functionCalled(e)) return checkInlinedCall(e, *fn);
  Symbol* s = lookup(name);
  if (s && s->kind != Symbol::Builtin) {
    error(e.loc, "'" + name + "' is a " + s->kindName() + ", not a function");
    return out_.types.error();
  }
  if (!s) {
    unknownFunction(e);
    return out_.types.error();
  }
  e.symbol = s;
  const BuiltinInfo& builtin = info(*findBuiltin(name));
  e.builtin = builtin.id;
  const Type* u64 = out_.types.scalar(Type::U64);
  auto* argName = e.args.size() == 1 ? e.args[0]->as<NameExpr>() : nullptr;
  const Symbol* argSymbol = argName && argName->name.parts.size() == 1 ? lookup(argName->name.str()) : nullptr;
  bool streamArg = e.args.size() == 1 && (e.args[0]->as<PipelineArgExpr>() ||
                                          (argSymbol && (argSymbol->kind == Symbol::Stream ||
                                                         argSymbol->kind == Symbol::Vector)));
  if (builtin.stream == 1 || (builtin.stream == 2 && streamArg)) {
    if (!argumentCount(e, 1, 1)) return out_.types.error();
    if (lambdaDepth_ > 0) {
      error(e.loc, "'" + name + "' reads a whole stream, which a map or filter cannot do per element");
      return out_.types.error();
    }
    e.aggregate = true;
    return checkAggregate(e);
  }
  if (builtin.stream == 2) // min and max of two values
    if (!argumentCount(e, 2, 2)) return out_.types.error();
  if (!argumentCount(e, builtin.minArgs, builtin.maxArgs)) return out_.types.error();
  switch (builtin.id) {
  case Builtin::Rand:
    if (e.args.size() == 1) {
      const Type* t = check(*e.args[0], u64);
      if (t->isError() || !convert(*e.args[0], u64, "as the bound of rand")) return out_.types.error();
      if (auto v = constant(*e.args[0]); v && v->kind == ConstValue::Int && v->i == 0) {
        error(e.args[0]->loc, "rand(0) has no value to return; the bound must be at least 1");
        return out_.types.error();
      }
    }
    return u64;
  case Builtin::Hash:
    if (check(*e.args[0])->isError()) return out_.types.error();
    finalize(*e.args[0]);
    return u64;
  case Builtin::Abs: {
    const Type* t = check(*e.args[0], expected);
    if (t->isError()) return t;
    if (!t->isNumeric()) {
      error(e.args[0]->loc, "'abs' needs a number, not " + t->name());
      return out_.types.error();
    }
    return t;
  }
  case Builtin::Min:
  case Builtin::Max:
  case Builtin::Bor: {
    // Two operands of one type.
    const Type* a = check(*e.args[0], expected);
    const Type* b = check(*e.args[1], expected);
    if (a->isError() || b->isError()) return out_.types.error();
    const Type* t = unify(*e.args[0], *e.args[1], name, e.loc);
    if (!t) return out_.types.error();
    if (builtin.id == Builtin::Bor && !t->isInteger()) {
      error(e.loc, "'bor' needs integers, not " + t->name());
      return out_.types.error();
    }
    if (builtin.id != Builtin::Bor && !t->isOrderable()) {
      error(e.loc, "'" + name + "' needs values with an order, not " + t->name());
      return out_.types.error();
    }
    return t;
  }
  case Builtin::ParseU64:
  case Builtin::ParseI64:
  case Builtin::ParseF64:
  case Builtin::TryParseU64:
  case Builtin::TryParseI64:
  case Builtin::TryParseF64: {
    const bool tryForm = builtin.id == Builtin::TryParseU64 || builtin.id == Builtin::TryParseI64 ||
                         builtin.id == Builtin::TryParseF64;
    const Type* result = out_.types.scalar(builtin.id == Builtin::ParseU64 || builtin.id == Builtin::TryParseU64   ? Type::U64
                                           : builtin.id == Builtin::ParseI64 || builtin.id == Builtin::TryParseI64 ? Type::I64
                                                                                                                   : Type::F64);
    const Type* str = out_.types.scalar(Type::Str);
    const Type* text = check(*e.args[0], str);
    if (text->isError() || !convert(*e.args[0], str, "in '" + name + "'")) return out_.types.error();
    if (tryForm) {
      const Type* d = check(*e.args[1], result);
      if (d->isError() || !convert(*e.args[1], result, "as the default of '" + name + "'")) return out_.types.error();
    }
    return result;
  }
  case Builtin::Str: {
    const Type* t = check(*e.args[0]);
    if (t->isError()) return t;
    t = finalize(*e.args[0]);
    if (!t->isScalar()) {
      error(e.args[0]->loc, "'str' shows a number, a bool or a str; this is " + t->name());
      return out_.types.error();
    }
    return out_.types.scalar(Type::Str);
  }
  case Builtin::Count:
  case Builtin::Sum: break; // aggregates, above
  }
  return out_.types.error();
}

const Type* Checker::checkCppCall(CallExpr& e) {
  const std::string name = e.callee.str();
  if (e.callee.parts[0] != "cpp") {
    error(e.loc, "unknown function '" + name + "' (imported C++ functions are called as cpp::name(…))");
    return out_.types.error();
  }
  std::string cppName = name.substr(5);
  const CppFunction* f = nullptr;
  std::vector<const CppFunction*> overloads;
  for (auto& h : out_.headers) {
    auto found = h->findOverloads(cppName);
    overloads.insert(overloads.end(), found.begin(), found.end());
  }
  if (overloads.empty()) {
    std::vector<std::string> names;
    for (auto& h : out_.headers)
      for (const CppFunction& fn : h->functions) names.push_back(fn.name);
    error(e.loc, "no function 'cpp::" + cppName + "' in the imported headers" +
                     (out_.headers.empty() ? std::string(" (nothing is imported)") : suggest(cppName, names)));
    return out_.types.error();
  }
  for (const CppFunction* candidate : overloads)
    if (candidate->params.size() == e.args.size()) f = candidate;
  if (!f) {
    f = overloads[0];
    error(e.loc, "'" + name + "' takes " + plural(f->params.size(), "argument") + ", but " +
                     std::to_string(e.args.size()) + (e.args.size() == 1 ? " was" : " were") + " given");
    return out_.types.error();
  }
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* param = importedType(f->params[i], e.args[i]->loc,
                                     "parameter " + std::to_string(i + 1) + " of " + name);
    const Type* arg = check(*e.args[i], param->isError() ? nullptr : param);
    if (param->isError() || arg->isError()) {
      ok = false;
      continue;
    }
    std::string pname = i < f->paramNames.size() && !f->paramNames[i].empty() ? " '" + f->paramNames[i] + "'" : "";
    ok = convert(*e.args[i], param, "as argument " + std::to_string(i + 1) + pname + " of " + name) && ok;
  }
  const Type* result = importedType(f->result, e.loc, "the result of " + name);
  if (!ok || result->isError()) return out_.types.error();
  Symbol s{Symbol::CppFunction, name, e.loc};
  s.function = f;
  s.type = result;
  e.symbol = &out_.symbols.emplace_back(std::move(s));
  return result;
}

const Type* Checker::checkRecordInit(RecordInitExpr& e) {
  NamedType ref;
  ref.name = e.recordName;
  ref.loc = e.loc;
  const Type* t = resolveType(ref);
  if (t->isError()) return t;
  if (t->kind != Type::Record) {
    error(e.loc, t->name() + " is not a record, so it cannot be built with { field: … }");
    return out_.types.error();
  }
  const RecordInfo* r = t->record;
  if (!r->buildable) {
    error(e.loc, r->name + " cannot be built with { field: … }: in C++ it is not an aggregate with public fields");
    return out_.types.error();
  }
  bool ok = true;
  std::set<std::string> given;
  for (FieldInit& f : e.fields) {
    const FieldInfo* field = r->field(f.field);
    if (!field) {
      std::vector<std::string> names;
      for (const FieldInfo& fi : r->fields) names.push_back(fi.name);
      error(f.loc, "record " + r->name + " has no field '" + f.field + "'" + suggest(f.field, names));
      ok = false;
      check(*f.value);
      continue;
    }
    if (!given.insert(f.field).second) {
      error(f.loc, "field '" + f.field + "' is given twice");
      ok = false;
      continue;
    }
    const Type* v = check(*f.value, field->type);
    ok = !v->isError() && convert(*f.value, field->type, "for field '" + f.field + "' of " + r->name) && ok;
  }
  std::vector<std::string> missing;
  for (const FieldInfo& fi : r->fields)
    if (!given.count(fi.name)) missing.push_back("'" + fi.name + "'");
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
    error(e.loc, r->name + " { … } is missing " + (missing.size() == 1 ? "field " : "fields ") + list +
                     " (every field is given by name)");
    ok = false;
  }
  return ok ? t : out_.types.error();
}

const Type* Checker::checkArray(Expr& e, const Type* expected) {
  const Type* element = expected && expected->kind == Type::Array ? expected->element : nullptr;
  if (auto* r = e.as<ArrayRepeatExpr>()) {
    const Type* v = check(*r->value, element);
    const Type* n = check(*r->count, out_.types.scalar(Type::U64));
    if (v->isError() || n->isError()) return out_.types.error();
    std::string why;
    auto count = n->isInteger() ? constant(*r->count, &why) : std::nullopt;
    if (!count || count->kind != ConstValue::Int) {
      error(r->count->loc, "the length of [value; length] must be a constant integer" + (why.empty() ? "" : ": " + why));
      return out_.types.error();
    }
    if (count->i <= 0 || count->i > (1 << 24)) {
      error(r->count->loc, "an array length must be between 1 and 16777216, not " + count->str());
      return out_.types.error();
    }
    finalize(*r->count);
    if (element) {
      if (!convert(*r->value, element, "as an array element")) return out_.types.error();
    } else {
      element = finalize(*r->value);
    }
    return out_.types.array(element, static_cast<uint64_t>(count->i));
  }
  auto& list = *e.as<ArrayListExpr>();
  if (list.elements.empty()) {
    if (expected && expected->kind == Type::Array && expected->length == 0) return expected;
    error(e.loc, "an array needs at least one element; write [value; length] for a filled array");
    return out_.types.error();
  }
  bool ok = true;
  for (ExprPtr& el : list.elements) ok = !check(*el, element)->isError() && ok;
  if (!ok) return out_.types.error();
  if (!element) {
    for (ExprPtr& el : list.elements)
      if (!el->type->isUntyped()) {
        element = el->type;
        break;
      }
    if (!element) element = finalize(*list.elements[0]);
  }
  for (ExprPtr& el : list.elements) ok = convert(*el, element, "as an array element") && ok;
  return ok ? out_.types.array(element, list.elements.size()) : out_.types.error();
}

} // namespace flow::sema
