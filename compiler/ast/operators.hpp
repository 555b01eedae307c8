#pragma once
// Operators as enums, from operators.def.
#include <optional>
#include <string_view>

namespace flow::ast {

enum class BinaryOp {
#define BINARY_OP(Id, spelling, category) Id,
#include "ast/operators.def"
};
enum class UnaryOp {
#define UNARY_OP(Id, spelling) Id,
#include "ast/operators.def"
};
enum class OperatorKind { Arithmetic, Bitwise, Shift, Equality, Relational, Logical };

const char* spelling(BinaryOp op);
const char* spelling(UnaryOp op);
OperatorKind kindOf(BinaryOp op);
std::optional<BinaryOp> findBinaryOp(std::string_view spelling);
std::optional<UnaryOp> findUnaryOp(std::string_view spelling);

} // namespace flow::ast
