#include "ast/operators.hpp"

#include "ast/tables.hpp"

namespace flow::ast {

namespace {
struct BinaryInfo {
  BinaryOp op;
  const char* spelling;
  OperatorKind kind;
};
constexpr BinaryInfo kBinary[] = {
#define BINARY_OP(Id, spelling, category) {BinaryOp::Id, spelling, OperatorKind::category},
#include "ast/operators.def"
};
struct UnaryInfo {
  UnaryOp op;
  const char* spelling;
};
constexpr UnaryInfo kUnary[] = {
#define UNARY_OP(Id, spelling) {UnaryOp::Id, spelling},
#include "ast/operators.def"
};
} // namespace

const char* spelling(BinaryOp op) { return kBinary[static_cast<int>(op)].spelling; }
const char* spelling(UnaryOp op) { return kUnary[static_cast<int>(op)].spelling; }
OperatorKind kindOf(BinaryOp op) { return kBinary[static_cast<int>(op)].kind; }

std::optional<BinaryOp> findBinaryOp(std::string_view text) {
  return findRow(kBinary, text, &BinaryInfo::op, &BinaryInfo::spelling);
}

std::optional<UnaryOp> findUnaryOp(std::string_view text) {
  return findRow(kUnary, text, &UnaryInfo::op, &UnaryInfo::spelling);
}

} // namespace flow::ast
