#pragma once
// What `flowc lsp` knows about one open script: its diagnostics, and the checked program
// and plan behind hover, go to definition and completion. Built by the compiler's own
// front end (parser, sema, planner), from the editor's text, each time it changes.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "plan/plan.hpp"
#include "sema/symbols.hpp"

#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace flow::lsp {

/// A place in a file as LSP counts: 0-based line, UTF-16 code units into the line.
struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};
struct Range {
  Position start, end;
};
/// A place in some file (go to definition may lead into a module).
struct Location {
  std::string path;
  Range range;
};

struct Diagnostic {
  Range range;
  bool error = true; // else a warning
  std::string message; // with its notes, one a line
};

struct CompletionItem {
  std::string label;
  enum Kind { Keyword, Variable, Field, Method, Function, Record, Module } kind = Keyword;
  std::string detail; // a type, or what the word is
};

struct AnalysisOptions {
  std::vector<std::string> includeDirs;
  uint64_t strCapacity = 254;
};

class Analysis {
public:
  /// Checks (and, if clean, plans) `text` as the script at `path`.
  Analysis(std::string path, std::string text, const AnalysisOptions& options);
  ~Analysis();
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// Whether the script checked without errors (hover, definition and completion then
  /// know every name).
  bool clean() const { return checked_ != nullptr; }
  /// Line `line` (0-based) of the text, without its line break.
  std::string_view lineText(uint32_t line) const;
  /// The text this analysis checked.
  const std::string& text() const;

  /// Markdown for what is at `at`: a name's kind and type, a field's type, a method or
  /// builtin, and the plan's nodes of the line (elements, bytes, memory, I/O).
  std::optional<std::string> hover(Position at) const;
  /// Where the name at `at` is declared (a module's file for its declarations).
  std::optional<Location> definition(Position at) const;
  /// Names that fit at `at` of `line` (the editor's text of that line now, which may be
  /// newer than this analysis): after `x.` the fields or methods of x (or a module's
  /// declarations), after `|` the stages, else the script's names, keywords and builtins.
  std::vector<CompletionItem> completion(Position at, std::string_view line) const;

  /// The script's own declarations, in order, for an outline (textDocument/documentSymbol):
  /// each with its LSP SymbolKind, what it is, its line and its name's place.
  struct Declaration {
    std::string name, detail;
    int kind = 13; // LSP SymbolKind: 23 struct, 12 function, 13 variable, 14 constant, …
    Range line, name_;
  };
  std::vector<Declaration> declarations() const;

  /// The word (a name, a keyword) at `at` in this text, and its columns (1-based, in
  /// code points as the compiler counts them).
  struct Word {
    std::string text;
    uint32_t line = 0, begin = 0, end = 0;
  };
  std::optional<Word> wordAt(Position at) const;

private:
  struct Hit; // what the AST has at a place
  std::optional<Hit> find(const Word& word) const;
  /// The file of the module whose alias `word` is (`graph` of `use std.graph;`).
  std::optional<std::string> moduleFile(const Word& word) const;
  const sema::Symbol* symbolNamed(const std::string& name, uint32_t line) const;
  const ast::FnDecl* functionNamed(const std::string& name) const;
  /// `loc` as a place in its file, at the first `name` from there on its line.
  std::optional<Location> locationOf(SourceLoc loc, std::string_view name) const;
  /// The plan's nodes on these lines of the script, as hover shows them.
  std::string planLines(const std::set<uint32_t>& lines) const;
  /// The comment lines right above `loc`, as a code block for hover ("" if none).
  std::string commentAbove(SourceLoc loc) const;

  std::ostringstream sink_;          // the engine prints nowhere: diagnostics go to the editor
  std::unique_ptr<DiagnosticEngine> diags_; // owns the modules' files that locations point into
  std::unique_ptr<SourceFile> file_;
  std::unique_ptr<ast::Program> program_;
  std::unique_ptr<sema::CheckedProgram> checked_;
  std::optional<plan::Plan> plan_;
  std::vector<Diagnostic> diagnostics_;
};

/// Columns as the compiler counts them (1-based code points) and as LSP does (0-based
/// UTF-16 units), on one line's text.
uint32_t toUtf16(std::string_view line, uint32_t column);
uint32_t fromUtf16(std::string_view line, uint32_t character);

} // namespace flow::lsp
