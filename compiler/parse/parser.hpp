#pragma once
// Entry points of the front end: text → AST, with diagnostics.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "parse/location_map.hpp"

#include <cstddef>
#include <memory>

namespace flow::parse {

/// How deep a script may nest (docs/language.md, "Limits"): every expression (so each
/// bracket pair, operator, cast and call), every block, type, pipeline and `else if`
/// counts one level. The parser stops at the first construct past it, so the AST — and
/// every pass that recurses over it — is never deeper than a small multiple of this.
inline constexpr unsigned kMaxNesting = 256;

/// The largest script flowc reads (docs/language.md, "Limits").
inline constexpr std::size_t kMaxScriptBytes = std::size_t{1} << 20;

/// Parses a whole script. Returns null if it has lexical or syntax errors (all of them
/// are reported); otherwise the AST, possibly with literal errors reported beside it.
std::unique_ptr<ast::Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags);

/// Parses `text` as one expression located at `map` within `file` (used for `{…}` in
/// strings and `--set name=value`), `depth` levels deep already (a string's `{…}`
/// counts from the string's own depth). Returns null after reporting errors.
ast::ExprPtr parseExpression(const std::string& text, const SourceFile& file,
                             DiagnosticEngine& diags, LocationMap map, unsigned depth = 0);

} // namespace flow::parse
