#pragma once
// Compile-time values: literals, params and arithmetic on them. Used for params'
// defaults (and `--set`), array lengths, and the counts the planner estimates from.
#include <functional>
#include <optional>
#include <string>

namespace flow::ast {
struct Expr;
}

namespace flow::sema {

struct Symbol;

struct ConstValue {
  enum Kind { Int, Float, Bool } kind = Int;
  __int128 i = 0; // Int: wide enough that u64 and i64 arithmetic cannot overflow unseen
  double f = 0;
  bool b = false;

  static ConstValue integer(__int128 v) { return {Int, v, 0, false}; }
  static ConstValue floating(double v) { return {Float, 0, v, false}; }
  static ConstValue boolean(bool v) { return {Bool, 0, 0, v}; }
  double asDouble() const { return kind == Int ? static_cast<double>(i) : kind == Float ? f : b; }
  std::string str() const;
};

/// Looks up the value of a symbol (a param) during evaluation.
using SymbolValue = std::function<std::optional<ConstValue>(const Symbol*)>;

/// Evaluates an expression that sema has checked, or returns nullopt (with the reason in
/// `whyNot` when given) if it is not a compile-time constant. Integer arithmetic follows
/// the expression's type (wrapping in unsigned types, as the program will).
std::optional<ConstValue> evaluate(const ast::Expr& expr, const SymbolValue& lookup,
                                   std::string* whyNot = nullptr);

} // namespace flow::sema
