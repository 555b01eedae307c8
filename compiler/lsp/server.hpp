#pragma once
// `flowc lsp`: a Language Server Protocol server over standard input and output
// (JSON-RPC 2.0 messages, each after a Content-Length header). It keeps the text of each
// open script as the editor sends it (whole, on every change), checks it with the
// compiler's front end and answers:
//   textDocument/publishDiagnostics (sent after each change), hover, definition,
//   completion, documentSymbol (an outline of the declarations) and formatting (flowc
//   fmt's layout).
#include "lsp/analysis.hpp"

#include <iosfwd>

namespace flow::lsp {

/// Serves one client from `in` to `out` until it asks to exit or closes its end.
/// Returns the exit status LSP asks for: 0 after shutdown, 1 without it.
int serve(std::istream& in, std::ostream& out, const AnalysisOptions& options);

} // namespace flow::lsp
