#pragma once
// `flowc fmt`'s layout: one canonical form of a script's text, as gofmt gives Go's.
//
// The formatter works on the script's tokens, comments included, and keeps every one in
// its order and on its line: it decides only the white space. Each line is indented by
// what is open at its start (blocks and brackets, 4 columns a level; a statement's
// continuation lines 4 more, its `| stage` lines 2 more than the line they continue),
// tokens on a line are separated by one space or none by fixed rules (`f(x)`, `a + b`,
// `x: u64`, `stream<T>`, `-x`), trailing comments of consecutive lines line up, at most
// one blank line is kept, none after `{` or before `}`. Where lines break stays the
// author's choice: the formatter never joins or splits lines.
#include "ast/diagnostics.hpp"
#include "ast/source.hpp"

#include <optional>
#include <string>

namespace flow::format {

/// The canonical text of `file`, or nullopt after reporting its syntax errors to `diags`
/// (a script that does not parse is not formatted). The result lexes to the same tokens,
/// comments included, and formatting it again gives it back unchanged.
std::optional<std::string> formatScript(const SourceFile& file, DiagnosticEngine& diags);

} // namespace flow::format
