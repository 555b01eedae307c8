#include "sema/constant.hpp"

#include "ast/ast.hpp"
#include "ast/unreachable.hpp"
#include "sema/symbols.hpp"
#include "sema/types.hpp"

#include <cmath>

namespace flow::sema {

namespace {

std::string int128ToString(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + s : s;
}

/// A comparison operator applied to two numbers of one kind; nullopt for other operators.
template <class V> std::optional<ConstValue> compare(ast::BinaryOp op, V x, V y) {
  using ast::BinaryOp;
  switch (op) {
  case BinaryOp::Eq: return ConstValue::boolean(x == y);
  case BinaryOp::Ne: return ConstValue::boolean(x != y);
  case BinaryOp::Lt: return ConstValue::boolean(x < y);
  case BinaryOp::Le: return ConstValue::boolean(x <= y);
  case BinaryOp::Gt: return ConstValue::boolean(x > y);
  case BinaryOp::Ge: return ConstValue::boolean(x >= y);
  default: return std::nullopt;
  }
}

/// Wraps an integer to the range of `type` as C++ would (two's complement).
__int128 wrap(__int128 v, const Type* type) {
  if (!type || !type->isInteger() || type->kind == Type::IntLit) return v;
  unsigned bits = type->bits();
  unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
  unsigned __int128 u = static_cast<unsigned __int128>(v) & mask;
  if (type->isSigned() && (u >> (bits - 1)) & 1) return static_cast<__int128>(u) - (static_cast<__int128>(1) << bits);
  return static_cast<__int128>(u);
}

struct Evaluator {
  const SymbolValue& lookup;
  std::string why;

  std::optional<ConstValue> fail(std::string reason) {
    if (why.empty()) why = std::move(reason);
    return std::nullopt;
  }

  std::optional<ConstValue> eval(const ast::Expr& e) {
    using namespace ast;
    switch (e.kind()) {
    case Expr::IntLit: return ConstValue::integer(e.as<IntLitExpr>()->value);
    case Expr::SizeLit: return ConstValue::integer(e.as<SizeLitExpr>()->bytes);
    case Expr::FloatLit: {
      double v = e.as<FloatLitExpr>()->value;
      // An exact float literal in an integer context (`4e9`) is that integer.
      if (e.type && e.type->isInteger() && e.type->kind != Type::IntLit) return ConstValue::integer(static_cast<__int128>(v));
      return ConstValue::floating(v);
    }
    case Expr::BoolLit: return ConstValue::boolean(e.as<BoolLitExpr>()->value);
    case Expr::Name: {
      const Symbol* s = e.as<NameExpr>()->symbol;
      if (!s) return fail("'" + e.as<NameExpr>()->name.str() + "' is unknown");
      if (auto v = lookup(s)) return v;
      return fail("'" + s->name + "' is a " + s->kindName() + ", not a constant");
    }
    case Expr::Unary: return unary(*e.as<UnaryExpr>());
    case Expr::Binary: return binary(*e.as<BinaryExpr>());
    case Expr::Cast: return cast(*e.as<CastExpr>());
    case Expr::Call: return call(*e.as<CallExpr>());
    default: return fail("it is computed when the program runs");
    }
  }

  std::optional<ConstValue> unary(const ast::UnaryExpr& u) {
    auto v = eval(*u.operand);
    if (!v) return v;
    if (u.op == ast::UnaryOp::Not) return ConstValue::boolean(!v->b);
    if (u.op == ast::UnaryOp::Neg) {
      if (v->kind == ConstValue::Float) return ConstValue::floating(-v->f);
      return ConstValue::integer(wrap(-v->i, u.type));
    }
    return ConstValue::integer(wrap(~v->i, u.type)); // BitNot
  }

  std::optional<ConstValue> binary(const ast::BinaryExpr& b) {
    auto l = eval(*b.lhs);
    if (!l) return l;
    using ast::BinaryOp;
    const BinaryOp op = b.op;
    const std::string text = ast::spelling(op); // for messages
    if (op == BinaryOp::And && l->kind == ConstValue::Bool && !l->b) return ConstValue::boolean(false);
    if (op == BinaryOp::Or && l->kind == ConstValue::Bool && l->b) return ConstValue::boolean(true);
    auto r = eval(*b.rhs);
    if (!r) return r;
    if (l->kind == ConstValue::Bool) {
      if (op == BinaryOp::And || op == BinaryOp::Or) return ConstValue::boolean(r->b);
      if (op == BinaryOp::Eq) return ConstValue::boolean(l->b == r->b);
      if (op == BinaryOp::Ne) return ConstValue::boolean(l->b != r->b);
      return fail("'" + text + "' on bool");
    }
    bool floating = l->kind == ConstValue::Float || r->kind == ConstValue::Float;
    if (floating) {
      double x = l->asDouble(), y = r->asDouble();
      switch (op) {
      case BinaryOp::Add: return ConstValue::floating(x + y);
      case BinaryOp::Sub: return ConstValue::floating(x - y);
      case BinaryOp::Mul: return ConstValue::floating(x * y);
      case BinaryOp::Div: return ConstValue::floating(x / y);
      default: break;
      }
      if (auto c = compare(op, x, y)) return c;
      return fail("'" + text + "' on floats");
    }
    __int128 x = l->i, y = r->i;
    const Type* t = b.type;
    switch (op) {
    case BinaryOp::Add: return ConstValue::integer(wrap(x + y, t));
    case BinaryOp::Sub: return ConstValue::integer(wrap(x - y, t));
    case BinaryOp::Mul:
      // Beyond 64 bits even the 128-bit product can overflow; no u64/i64 value needs it.
      if ((x > 0 && y > 0 && x > (((__int128)1) << 100) / y)) return fail("the product overflows");
      return ConstValue::integer(wrap(x * y, t));
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (y == 0) return fail("it divides by zero");
      return ConstValue::integer(wrap(op == BinaryOp::Div ? x / y : x % y, t));
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (y < 0 || y >= 64) return fail("the shift count " + int128ToString(y) + " is not in 0..63");
      return ConstValue::integer(wrap(op == BinaryOp::Shl ? x << static_cast<int>(y) : x >> static_cast<int>(y), t));
    case BinaryOp::BitAnd: return ConstValue::integer(wrap(x & y, t));
    case BinaryOp::BitXor: return ConstValue::integer(wrap(x ^ y, t));
    default: break;
    }
    if (auto c = compare(op, x, y)) return c;
    return fail("'" + text + "' is not constant");
  }

  std::optional<ConstValue> cast(const ast::CastExpr& c) {
    auto v = eval(*c.operand);
    if (!v || !c.target->resolved) return v;
    const Type* to = c.target->resolved;
    if (to->isFloat()) return ConstValue::floating(v->asDouble());
    if (to->kind == Type::Bool) return ConstValue::boolean(v->kind == ConstValue::Bool ? v->b : v->asDouble() != 0);
    if (to->isInteger()) {
      if (v->kind == ConstValue::Float) {
        if (!std::isfinite(v->f)) return fail("the value is not finite");
        return ConstValue::integer(wrap(static_cast<__int128>(v->f), to));
      }
      if (v->kind == ConstValue::Bool) return ConstValue::integer(v->b ? 1 : 0);
      return ConstValue::integer(wrap(v->i, to));
    }
    return fail("a cast to " + to->name() + " is not constant");
  }

  std::optional<ConstValue> call(const ast::CallExpr& c) {
    const std::string name = c.callee.str();
    if (!c.builtin || c.aggregate) return fail("'" + name + "' is computed when the program runs");
    const ast::Builtin fn = *c.builtin;
    if ((fn == ast::Builtin::Min || fn == ast::Builtin::Max) && c.args.size() == 2) {
      auto a = eval(*c.args[0]), b = eval(*c.args[1]);
      if (!a || !b) return std::nullopt;
      bool aLess = a->asDouble() < b->asDouble();
      if (a->kind == ConstValue::Int && b->kind == ConstValue::Int) aLess = a->i < b->i;
      return (fn == ast::Builtin::Min) == aLess ? a : b;
    }
    if (fn == ast::Builtin::Abs && c.args.size() == 1) {
      auto a = eval(*c.args[0]);
      if (!a) return a;
      if (a->kind == ConstValue::Float) return ConstValue::floating(std::fabs(a->f));
      return ConstValue::integer(a->i < 0 ? -a->i : a->i);
    }
    return fail("'" + name + "' is computed when the program runs");
  }
};

} // namespace

std::string ConstValue::str() const {
  switch (kind) {
  case Int: return int128ToString(i);
  case Float: {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", f);
    return buf;
  }
  case Bool: return b ? "true" : "false";
  }
  unreachable("sema: a constant of no known kind");
}

std::optional<ConstValue> evaluate(const ast::Expr& expr, const SymbolValue& lookup, std::string* whyNot) {
  Evaluator e{lookup, {}};
  auto v = e.eval(expr);
  if (!v && whyNot) *whyNot = e.why;
  return v;
}

} // namespace flow::sema
