#pragma once
// Text forms of the AST: the tree for `flowc check --dump-ast`, a one-line summary for
// `flowc check --summary`, and type names as written.
#include "ast/ast.hpp"

#include <iosfwd>
#include <string>

namespace flow::ast {

void printAst(const Program& program, std::ostream& out);
/// "2 params, 1 record, 1 stream, 1 loop, 3 top-level statements"
std::string summarize(const Program& program);
/// `u32`, `[u8; 10]`, `cpp::ns::T`
std::string typeName(const TypeRef& type);

} // namespace flow::ast
