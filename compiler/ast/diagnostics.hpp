#pragma once
// The diagnostic engine: compiler errors are values collected here, printed as
// `file:line:col: error: message`, the source line, and a caret under the column.
#include "ast/source.hpp"

#include <deque>
#include <iosfwd>
#include <string>
#include <vector>

namespace flow {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  const SourceFile* file; // may be null for errors about no particular file
  SourceLoc loc;
  std::string message;
  size_t group = 0; // an error and the notes that follow it share a group
};

class DiagnosticEngine {
public:
  /// Diagnostics are collected and printed to `out`, in source order, by flush() (or
  /// when the engine is destroyed): the lexer runs ahead of the parser, so reports do
  /// not arrive in the order a reader expects.
  explicit DiagnosticEngine(std::ostream& out, bool color = false) : out_(out), color_(color) {}
  ~DiagnosticEngine() { flush(); }
  DiagnosticEngine(const DiagnosticEngine&) = delete;
  DiagnosticEngine& operator=(const DiagnosticEngine&) = delete;

  void flush();

  void error(const SourceFile* file, SourceLoc loc, std::string message);
  void warning(const SourceFile* file, SourceLoc loc, std::string message);
  void note(const SourceFile* file, SourceLoc loc, std::string message);

  /// Keeps a file alive as long as the engine, for diagnostics that point into a file
  /// nobody else owns (an imported C++ header).
  const SourceFile* keepFile(SourceFile file);

  /// Errors kept (and printed).
  unsigned errorCount() const { return errors_; }
  /// Every error reported, kept or dropped (past the limit, or a second one at a position):
  /// what a pass compares before and after it to know whether it found an error.
  unsigned errorsReported() const { return reported_; }
  bool hasErrors() const { return errors_ != 0; }
  /// True once so many errors were reported that the rest are dropped.
  bool tooManyErrors() const { return errors_ >= maxErrors_; }
  void setMaxErrors(unsigned n) { maxErrors_ = n; }
  bool hasErrorOnLine(const SourceFile* file, uint32_t line) const;
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  /// Instead of printing them, flush() only orders them: a tool takes them as JSON.
  void setQuiet(bool quiet) { quiet_ = quiet; }
  /// Every diagnostic so far as JSON objects (flowc check --diagnostics-format=json), in
  /// the order flush() prints: each error or warning with its file, line, column (1-based;
  /// null where there is none), severity, message and its notes, each on a line of its
  /// own; `first`: no object of the array was written before (it is false after one was).
  void writeJson(std::ostream& out, bool& first) const;

private:
  void report(Severity severity, const SourceFile* file, SourceLoc loc, std::string message);
  void add(Severity severity, const SourceFile* file, SourceLoc loc, std::string message);
  void print(const Diagnostic& d);
  /// Indexes of the diagnostics from `from` on, in print order.
  std::vector<size_t> printOrder(size_t from) const;

  std::ostream& out_;
  bool color_;
  unsigned errors_ = 0;
  unsigned reported_ = 0;
  unsigned maxErrors_ = 20;
  std::vector<Diagnostic> diagnostics_;
  std::deque<SourceFile> keptFiles_;
  size_t printed_ = 0;
  bool limitNoticePrinted_ = false;
  bool quiet_ = false;
};

} // namespace flow
