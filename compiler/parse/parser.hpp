#pragma once
// Entry points of the front end: text → AST, with diagnostics.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "parse/location_map.hpp"

#include <memory>

namespace flow::parse {

/// Parses a whole script. Returns null if it has lexical or syntax errors (all of them
/// are reported); otherwise the AST, possibly with literal errors reported beside it.
std::unique_ptr<ast::Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags);

/// Parses `text` as one expression located at `map` within `file` (used for `{…}` in
/// strings and `--set name=value`). Returns null after reporting errors.
ast::ExprPtr parseExpression(const std::string& text, const SourceFile& file,
                             DiagnosticEngine& diags, LocationMap map);

} // namespace flow::parse
