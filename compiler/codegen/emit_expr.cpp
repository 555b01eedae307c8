// Expressions. Flow's arithmetic is done in the expression's own type and wraps around:
// C++ promotes narrow integers to int and leaves signed overflow undefined, so +, -, *
// and negation of signed or narrow integers go through flow::script::add, sub, mul and
// neg (unsigned arithmetic, defined), and results narrower than 32 bits are cast back;
// division, float-to-integer casts and computed array indexes go through checked helpers.
#include "codegen/generator.hpp"

#include "ast/unreachable.hpp"
#include "ast/visit.hpp"

#include <cmath>

namespace flow::codegen {

namespace {
bool narrow(const Type* t) { return t->isInteger() && t->bits() < 32; }
std::string castIfNarrow(const Type* t, const std::string& cppType, const std::string& e) {
  return narrow(t) ? "static_cast<" + cppType + ">(" + e + ")" : e;
}
/// A constant divisor with which C++'s / and % are defined for every dividend: not 0,
/// and not -1 (the lowest signed value divided by -1 overflows).
bool isSafeConstantDivisor(const Expr& e) {
  auto v = sema::evaluate(e, [](const Symbol*) { return std::nullopt; });
  return v && v->kind == sema::ConstValue::Int && v->i != 0 && v->i != -1;
}
/// Whether evaluating e has an effect another operand could see: it draws from rand(),
/// calls an imported C++ function, or may stop the program (a parse, a division, a
/// checked str method, an index), whose message must be the first one in script order.
bool hasSideEffect(const Expr& e) {
  struct Finder : ast::Visitor {
    bool found = false;
    bool visit(const Expr& x) override {
      if (auto* c = x.as<CallExpr>())
        found = found || (c->builtin && (*c->builtin == ast::Builtin::Rand || *c->builtin == ast::Builtin::ParseU64 ||
                                         *c->builtin == ast::Builtin::ParseI64 || *c->builtin == ast::Builtin::ParseF64)) ||
                (c->symbol && c->symbol->kind == Symbol::CppFunction);
      if (auto* m = x.as<MethodCallExpr>()) found = found || (m->strMethod && ast::info(*m->strMethod).checked);
      if (auto* b = x.as<BinaryExpr>())
        found = found || ((b->op == ast::BinaryOp::Div || b->op == ast::BinaryOp::Rem) && b->type->isInteger() &&
                          !isSafeConstantDivisor(*b->rhs));
      found = found || x.as<IndexExpr>();
      return !found;
    }
  } finder;
  finder.walk(e);
  return finder.found;
}
} // namespace

std::string Generator::leftToRight(const std::vector<const Expr*>& operands,
                                   const std::function<std::string(const std::vector<std::string>&)>& combine) {
  std::vector<std::string> code;
  size_t effects = 0;
  for (const Expr* o : operands) {
    code.push_back(expr(*o));
    effects += hasSideEffect(*o);
  }
  if (effects < 2) return combine(code);
  // C++ leaves the order of an operator's operands and of a call's arguments to the
  // compiler (g++ evaluates arguments right to left); the script reads left to right.
  std::string body = "[&] { ";
  std::vector<std::string> names;
  for (size_t k = 0; k < code.size(); ++k) {
    names.push_back("fl_operand" + std::to_string(k));
    body += "const auto " + names.back() + " = " + code[k] + "; ";
  }
  return body + "return " + combine(names) + "; }()";
}

const char* Generator::wrapHelper(ast::BinaryOp op) {
  switch (op) {
  case ast::BinaryOp::Add: return "add";
  case ast::BinaryOp::Sub: return "sub";
  case ast::BinaryOp::Mul: return "mul";
  default: return nullptr;
  }
}

bool Generator::needsWrapHelper(const Type* t) { return t->isInteger() && (t->isSigned() || t->bits() < 32); }


std::string Generator::integerLiteral(const Type* t, __int128 v) {
  const int bits = static_cast<int>(t->bits());
  const __int128 modulus = static_cast<__int128>(1) << bits;
  v %= modulus; // wraps, as Flow's arithmetic does
  if (v < 0 && !t->isSigned()) v += modulus;
  if (t->isSigned() && v >= modulus / 2) v -= modulus;
  if (t->isSigned() && v == -(modulus / 2)) // the lowest value has no literal of its own
    return type(t) + "{std::numeric_limits<" + type(t) + ">::lowest()}";
  const long long whole = static_cast<long long>(v);
  return type(t) + "{" + (t->isSigned() ? std::to_string(whole) + "LL" : std::to_string(static_cast<unsigned long long>(v)) + "ULL") + "}";
}

std::string Generator::literal(const Expr& e) {
  const Type* t = e.type;
  if (auto* b = e.as<BoolLitExpr>()) return b->value ? "true" : "false";
  if (t->isFloat()) {
    double v = e.as<FloatLitExpr>() ? e.as<FloatLitExpr>()->value : 0;
    if (auto* i = e.as<IntLitExpr>()) v = static_cast<double>(i->value);
    if (auto* s = e.as<SizeLitExpr>()) v = static_cast<double>(s->bytes);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string text = buf;
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return t->kind == Type::F32 ? text + "f" : text;
  }
  uint64_t v = 0;
  if (auto* i = e.as<IntLitExpr>()) v = i->value;
  if (auto* s = e.as<SizeLitExpr>()) v = s->bytes;
  if (auto* f = e.as<FloatLitExpr>()) v = static_cast<uint64_t>(f->value); // an exact float such as 4e9
  std::string text = std::to_string(v) + (t->isSigned() ? "LL" : "ULL");
  return type(t) + "{" + text + "}";
}

std::string Generator::expr(const Expr& e) {
  switch (e.kind()) {
  case Expr::IntLit:
  case Expr::FloatLit:
  case Expr::SizeLit:
  case Expr::BoolLit: return literal(e);
  case Expr::StringLit: return stringLiteral(*e.as<StringLitExpr>());
  case Expr::Name: return name(e.as<NameExpr>()->symbol);
  case Expr::Unary: {
    auto& u = *e.as<UnaryExpr>();
    if (u.op == ast::UnaryOp::Neg && e.type->isInteger() && (u.operand->as<IntLitExpr>() || u.operand->as<SizeLitExpr>())) {
      // -32768 as i16: the literal 32768 alone does not fit; emit the value.
      if (auto v = sema::evaluate(e, [](const Symbol*) { return std::nullopt; }); v && v->kind == sema::ConstValue::Int)
        return integerLiteral(e.type, v->i);
    }
    std::string operand = expr(*u.operand);
    if (u.op == ast::UnaryOp::Not) return "!(" + operand + ")";
    if (u.op == ast::UnaryOp::Neg && needsWrapHelper(e.type))
      return "flow::script::neg<" + type(e.type) + ">(" + operand + ")";
    return castIfNarrow(e.type, type(e.type), ast::spelling(u.op) + ("(" + operand + ")"));
  }
  case Expr::Binary: return binary(*e.as<BinaryExpr>());
  case Expr::Cast: {
    auto& c = *e.as<CastExpr>();
    const Type* from = c.operand->type;
    if (from->isFloat() && e.type->isInteger())
      return "flow::script::convert<" + type(e.type) + ">(" + expr(*c.operand) + ", " + where(e.loc) + ")";
    return "static_cast<" + type(e.type) + ">(" + expr(*c.operand) + ")";
  }
  case Expr::Field: {
    auto& f = *e.as<FieldExpr>();
    return expr(*f.object) + "." + fieldName(f.object->type, f.field);
  }
  case Expr::Index: {
    auto& i = *e.as<IndexExpr>();
    if (const Symbol* s = indexed(i)) {
      if (s->kind == Symbol::Array) return name(s) + ".at(" + expr(*i.index) + ", " + where(i.loc) + ")";
      return "flow::script::vector_get(" + name(s) + ", " + expr(*i.index) + ", " + where(i.loc) + ")";
    }
    if (i.object->type->isStr()) // a byte of a str, checked against its length
      return leftToRight({i.object.get(), i.index.get()}, [&](const std::vector<std::string>& a) {
        return "flow::script::at(" + a[0] + ", " + a[1] + ", " + where(i.loc) + ")";
      });
    auto v = sema::evaluate(*i.index, [](const Symbol*) { return std::nullopt; });
    if (v) return expr(*i.object) + "[" + std::to_string(static_cast<uint64_t>(v->i)) + "]"; // checked by sema
    return "flow::script::index(" + expr(*i.object) + ", " + expr(*i.index) + ", " + where(i.loc) + ")";
  }
  case Expr::MethodCall: return method(*e.as<MethodCallExpr>());
  case Expr::Call: return call(*e.as<CallExpr>());
  case Expr::RecordInit: return recordInit(*e.as<RecordInitExpr>());
  case Expr::ArrayRepeat: {
    auto& r = *e.as<ArrayRepeatExpr>();
    return "flow::script::filled<" + type(e.type->element) + ", " + std::to_string(e.type->length) + ">(" +
           expr(*r.value) + ")";
  }
  case Expr::ArrayList: {
    std::string items;
    for (const ExprPtr& el : e.as<ArrayListExpr>()->elements) items += (items.empty() ? "" : ", ") + expr(*el);
    return type(e.type) + "{" + items + "}";
  }
  case Expr::PipelineArg: unreachable("codegen: a pipeline argument outside its aggregate (a plan node computes it)");
  case Expr::IfElse: {
    // Both arms have the expression's type; only the chosen one is evaluated.
    auto& x = *e.as<IfExpr>();
    const std::string T = type(e.type);
    return "(" + expr(*x.cond) + " ? static_cast<" + T + ">(" + expr(*x.then) + ") : static_cast<" + T + ">(" +
           expr(*x.otherwise) + "))";
  }
  }
  unreachable("codegen: an expression of no known kind");
}

const Symbol* Generator::indexed(const IndexExpr& e) {
  auto* n = e.object->as<NameExpr>();
  if (!n || !n->symbol) return nullptr;
  return n->symbol->kind == Symbol::Array || n->symbol->kind == Symbol::Vector ? n->symbol : nullptr;
}

std::string Generator::assignTarget(const Expr& e) {
  // An element of an external vector is changed in its cached block (marked to be
  // written back); everything else is an lvalue as expr() writes it.
  if (auto* i = e.as<IndexExpr>()) {
    if (const Symbol* s = indexed(*i); s && s->kind == Symbol::Vector)
      return "flow::script::vector_ref(" + name(s) + ", " + expr(*i->index) + ", " + where(i->loc) + ")";
    if (!indexed(*i)) {
      auto v = sema::evaluate(*i->index, [](const Symbol*) { return std::nullopt; });
      if (v) return assignTarget(*i->object) + "[" + std::to_string(static_cast<uint64_t>(v->i)) + "]";
      return "flow::script::index(" + assignTarget(*i->object) + ", " + expr(*i->index) + ", " + where(i->loc) + ")";
    }
  }
  if (auto* f = e.as<FieldExpr>()) return assignTarget(*f->object) + "." + fieldName(f->object->type, f->field);
  return expr(e);
}

std::string Generator::binary(const BinaryExpr& e) {
  const std::string op = ast::spelling(e.op);
  const ast::OperatorKind kind = ast::kindOf(e.op);
  if (kind == ast::OperatorKind::Logical) // && and || are evaluated left to right in C++ too
    return "(" + expr(*e.lhs) + " " + op + " " + expr(*e.rhs) + ")";
  return leftToRight({e.lhs.get(), e.rhs.get()}, [&](const std::vector<std::string>& operands) {
    return binary(e, operands[0], operands[1]);
  });
}

std::string Generator::binary(const BinaryExpr& e, const std::string& l, const std::string& r) {
  const std::string op = ast::spelling(e.op);
  const ast::OperatorKind kind = ast::kindOf(e.op);
  if (kind == ast::OperatorKind::Equality || kind == ast::OperatorKind::Relational)
    return "(" + l + " " + op + " " + r + ")";
  if (e.type->isStr()) return "flow::script::concat(" + l + ", " + r + ", " + where(e.loc) + ")";
  const std::string T = type(e.type);
  if ((e.op == ast::BinaryOp::Div || e.op == ast::BinaryOp::Rem) && e.type->isInteger() &&
      !isSafeConstantDivisor(*e.rhs)) {
    return std::string("flow::script::") + (e.op == ast::BinaryOp::Div ? "div" : "mod") + "<" + T + ">(static_cast<" + T + ">(" + l +
           "), static_cast<" + T + ">(" + r + "), " + where(e.loc) + ")";
  }
  if (kind == ast::OperatorKind::Shift) {
    // The count is checked at compile time when constant; a computed count at or beyond
    // the width gives 0 (and the sign for >> of a negative value), not undefined behaviour.
    return "flow::script::shift_" + std::string(e.op == ast::BinaryOp::Shl ? "left" : "right") + "<" + T + ">(static_cast<" + T +
           ">(" + l + "), " + r + ")";
  }
  if (needsWrapHelper(e.type) && wrapHelper(e.op))
    return std::string("flow::script::") + wrapHelper(e.op) + "<" + T + ">(" + l + ", " + r + ")";
  // Both sides are converted to the result type first, so `u8 + u8` stays a u8.
  std::string a = e.lhs->type == e.type ? l : "static_cast<" + T + ">(" + l + ")";
  std::string b = e.rhs->type == e.type ? r : "static_cast<" + T + ">(" + r + ")";
  return castIfNarrow(e.type, T, "(" + a + " " + op + " " + b + ")");
}

std::string Generator::call(const CallExpr& e) {
  auto agg = aggregateVars_.find(&e);
  if (agg != aggregateVars_.end()) return agg->second;
  if (e.inlined) {
    // A script function, expanded here: each argument is evaluated once, then the body.
    std::string code = "[&]() -> " + type(e.type) + " { ";
    for (size_t k = 0; k < e.args.size(); ++k)
      code += "const " + type(e.params[k]->type) + " " + name(e.params[k]) + " = " + expr(*e.args[k]) + "; ";
    return code + "return " + expr(*e.inlined) + "; }()";
  }
  const std::string callee = e.callee.str();
  std::vector<const Expr*> operands;
  for (const ExprPtr& a : e.args) operands.push_back(a.get());
  if (e.symbol && e.symbol->kind == Symbol::CppFunction) {
    return leftToRight(operands, [&](const std::vector<std::string>& args) {
      std::string list;
      for (const std::string& a : args) list += (list.empty() ? "" : ", ") + a;
      return "::" + callee.substr(5) + "(" + list + ")";
    });
  }
  const std::string T = type(e.type);
  switch (*e.builtin) {
  case ast::Builtin::Rand: return e.args.empty() ? "flow::rand()" : "flow::rand(" + expr(*e.args[0]) + ")";
  case ast::Builtin::Hash: return "flow::script::hash(" + expr(*e.args[0]) + ")";
  case ast::Builtin::Abs: return "flow::script::abs<" + T + ">(" + expr(*e.args[0]) + ")";
  case ast::Builtin::Bor:
    return leftToRight(operands, [&](const std::vector<std::string>& a) {
      return castIfNarrow(e.type, T, "(static_cast<" + T + ">(" + a[0] + ") | static_cast<" + T + ">(" + a[1] + "))");
    });
  case ast::Builtin::Min:
  case ast::Builtin::Max: // of two values (of a stream, an aggregate: above)
    return leftToRight(operands, [&](const std::vector<std::string>& a) {
      // Floats by the total order of keys, so that min/max with a NaN is commutative.
      const std::string fn = holdsFloat(e.type) ? "flow::script::total_" : "std::";
      return fn + ast::info(*e.builtin).name + "<" + T + ">(" + a[0] + ", " + a[1] + ")";
    });
  case ast::Builtin::ParseU64:
  case ast::Builtin::ParseI64:
  case ast::Builtin::ParseF64:
    return std::string("flow::script::") + ast::info(*e.builtin).name + "(" + expr(*e.args[0]) + ", " + where(e.loc) + ")";
  case ast::Builtin::TryParseU64:
  case ast::Builtin::TryParseI64:
  case ast::Builtin::TryParseF64:
    return leftToRight(operands, [&](const std::vector<std::string>& a) {
      return std::string("flow::script::") + ast::info(*e.builtin).name + "(" + a[0] + ", " + a[1] + ")";
    });
  case ast::Builtin::Str: return formatStr(T, where(e.loc), {expr(*e.args[0])});
  case ast::Builtin::Count:
  case ast::Builtin::Sum: break;
  }
  throw std::logic_error("codegen: an aggregate with no plan node at " + std::to_string(e.loc.line) + ":" +
                         std::to_string(e.loc.column));
}

std::string Generator::formatStr(const std::string& strType, const std::string& where,
                                 const std::vector<std::string>& pieces) {
  std::string list;
  for (const std::string& p : pieces) list += ", " + p;
  return "flow::script::format_str<" + strType + "::capacity>(" + where + list + ")";
}

std::string Generator::stringLiteral(const StringLitExpr& e) {
  // Checked against the capacity when the program runs: an interpolation's length is
  // known only then (sema checks a plain literal).
  const std::string T = type(e.type);
  if (!e.literal.isInterpolated()) return T + "::from(" + quote(e.literal.text()) + ", " + where(e.loc) + ")";
  std::vector<const Expr*> values;
  for (const StringPart& part : e.literal.parts)
    if (part.expr) values.push_back(part.expr.get());
  return leftToRight(values, [&](const std::vector<std::string>& shown) {
    std::vector<std::string> pieces;
    size_t k = 0;
    for (const StringPart& part : e.literal.parts) pieces.push_back(part.expr ? shown[k++] : quote(part.text));
    return formatStr(T, where(e.loc), pieces);
  });
}

std::string Generator::strMethod(const MethodCallExpr& e) {
  const ast::StrMethodInfo& m = ast::info(*e.strMethod);
  std::vector<const Expr*> operands = {e.object.get()};
  for (const ExprPtr& a : e.args) operands.push_back(a.get());
  return leftToRight(operands, [&](const std::vector<std::string>& a) {
    std::string list;
    for (const std::string& x : a) list += (list.empty() ? "" : ", ") + x;
    if (m.checked) list += ", " + std::string(where(e.loc));
    return std::string("flow::script::") + m.name + "(" + list + ")";
  });
}

std::string Generator::method(const MethodCallExpr& e) {
  if (e.strMethod) return strMethod(e);
  std::string object = name(e.container);
  switch (*e.methodId) {
  case ast::Method::Push: {
    // Counted (--stats=json): a queue's pushes and peak size, a vector's pushes.
    const std::string c = pushCounter(*e.container);
    const bool queue = e.container->kind == Symbol::Queue;
    if (c.empty()) return object + (queue ? ".push(" : ".push_back(") + expr(*e.args[0]) + ")";
    return std::string(queue ? "flow::counted_push(" : "flow::counted_push_back(") + object + ", " + expr(*e.args[0]) +
           ", " + c + ")";
  }
  case ast::Method::Top:
    return e.type->kind == Type::Bool ? "static_cast<bool>(" + object + ".top())" : object + ".top()";
  case ast::Method::Pop: return object + ".pop()";
  case ast::Method::Back: return object + ".back()";
  case ast::Method::Empty: return object + ".empty()";
  case ast::Method::Size: return object + ".size()";
  case ast::Method::Clear: return object + ".clear()";
  case ast::Method::Fill: return object + ".fill(" + expr(*e.args[0]) + ")";
  case ast::Method::PopBelow: break; // a pipeline's source (its plan node), never a value
  }
  unreachable("codegen: a method of no known kind");
}

std::string Generator::recordInit(const RecordInitExpr& e) {
  const sema::RecordInfo* r = e.Expr::type->record;
  const std::string T = type(e.Expr::type);
  // C++ initializes fields in declaration order; the script may list them in another
  // order, so values are computed first, in the script's order, when that matters.
  bool inOrder = true;
  for (size_t i = 0; i < e.fields.size(); ++i) inOrder = inOrder && e.fields[i].field == r->fields[i].name;
  auto valueOf = [&](const std::string& field) -> const FieldInit* {
    for (const FieldInit& f : e.fields)
      if (f.field == field) return &f;
    return nullptr;
  };
  if (inOrder) {
    std::string items;
    for (const FieldInit& f : e.fields) items += (items.empty() ? "" : ", ") + ("." + fieldName(e.Expr::type, f.field) + " = " + expr(*f.value));
    return T + "{" + items + "}";
  }
  std::string body = "[&] { ";
  for (const FieldInit& f : e.fields) body += "const auto fl_" + f.field + " = " + expr(*f.value) + "; ";
  std::string items;
  for (const sema::FieldInfo& f : r->fields)
    if (valueOf(f.name)) items += (items.empty() ? "" : ", ") + ("." + fieldName(e.Expr::type, f.name) + " = fl_" + f.name);
  return body + "return " + T + "{" + items + "}; }()";
}

} // namespace flow::codegen
