#include "ast/diagnostics.hpp"

#include "flow/escape.hpp"

#include <algorithm>
#include <ostream>
#include <string>

namespace flow {

namespace {
/// How a severity is printed: its word, and the terminal colour of that word.
struct SeverityStyle {
  const char* name;
  const char* color;
};

SeverityStyle styleOf(Severity s) {
  switch (s) {
  case Severity::Error: return {"error", "\033[1;31m"};
  case Severity::Warning: return {"warning", "\033[1;35m"};
  case Severity::Note: return {"note", "\033[1;36m"};
  }
  return {"error", ""};
}

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// The caret line: spaces (tabs kept, so it lines up) up to the column, then '^'.
/// Columns count characters, so UTF-8 continuation bytes take no room.
std::string caretLine(std::string_view line, uint32_t column) {
  std::string caret;
  uint32_t chars = 0;
  for (size_t i = 0; i < line.size() && chars + 1 < column; ++i) {
    if (isContinuationByte(line[i])) continue;
    caret += line[i] == '\t' ? '\t' : ' ';
    ++chars;
  }
  while (chars + 1 < column) { // a column past the end of the line (e.g. a missing ';')
    caret += ' ';
    ++chars;
  }
  return caret + '^';
}
} // namespace

void DiagnosticEngine::error(const SourceFile* file, SourceLoc loc, std::string message) {
  report(Severity::Error, file, loc, std::move(message));
}
void DiagnosticEngine::warning(const SourceFile* file, SourceLoc loc, std::string message) {
  report(Severity::Warning, file, loc, std::move(message));
}
void DiagnosticEngine::note(const SourceFile* file, SourceLoc loc, std::string message) {
  report(Severity::Note, file, loc, std::move(message));
}

void DiagnosticEngine::report(Severity severity, const SourceFile* file, SourceLoc loc,
                              std::string message) {
  // A place in a module or an expanded function body is reported in its own file, and
  // followed by a note at each call that expanded it (the script's own call last).
  const SourceFile* script = file;
  const SourceOrigin* origin = loc.origin ? &sourceOrigin(loc.origin) : nullptr;
  if (origin && origin->file) file = origin->file;
  const size_t before = diagnostics_.size();
  add(severity, file, loc, std::move(message));
  if (diagnostics_.size() == before) return;
  for (; origin && origin->call.valid(); origin = origin->call.origin ? &sourceOrigin(origin->call.origin) : nullptr) {
    const SourceOrigin* at = origin->call.origin ? &sourceOrigin(origin->call.origin) : nullptr;
    add(Severity::Note, at && at->file ? at->file : script, origin->call,
        "in this call of '" + origin->function + "'");
  }
}

void DiagnosticEngine::add(Severity severity, const SourceFile* file, SourceLoc loc, std::string message) {
  if (severity == Severity::Error) {
    ++reported_;
    if (tooManyErrors()) return;
    // One error per position: recovery can stumble over the same token twice.
    for (const Diagnostic& d : diagnostics_)
      if (d.severity == Severity::Error && d.file == file && d.loc.line == loc.line &&
          d.loc.column == loc.column)
        return;
  }
  // A note belongs to the diagnostic before it and is printed right after it.
  size_t group = severity == Severity::Note && !diagnostics_.empty() ? diagnostics_.back().group : diagnostics_.size();
  diagnostics_.push_back({severity, file, loc, std::move(message), group});
  if (severity == Severity::Error) ++errors_;
}

const SourceFile* DiagnosticEngine::keepFile(SourceFile file) {
  keptFiles_.push_back(std::move(file));
  return &keptFiles_.back();
}

bool DiagnosticEngine::hasErrorOnLine(const SourceFile* file, uint32_t line) const {
  for (const Diagnostic& d : diagnostics_)
    if (d.severity == Severity::Error && d.file == file && d.loc.line == line) return true;
  return false;
}

std::vector<size_t> DiagnosticEngine::printOrder(size_t from) const {
  // Groups (an error and its notes) print in the order of where their error points;
  // within a group, and for equal positions, in the order reported.
  std::vector<size_t> order;
  for (size_t i = from; i < diagnostics_.size(); ++i) order.push_back(i);
  auto lead = [this](size_t i) -> const Diagnostic& { return diagnostics_[diagnostics_[i].group]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const Diagnostic& a = lead(x);
    const Diagnostic& b = lead(y);
    if (a.file != b.file) { // errors in several files (modules): by file, then position
      const std::string& pa = a.file ? a.file->path() : std::string();
      const std::string& pb = b.file ? b.file->path() : std::string();
      if (pa != pb) return pa < pb;
    }
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.column < b.loc.column;
  });
  return order;
}

void DiagnosticEngine::flush() {
  if (quiet_) return;
  for (size_t i : printOrder(printed_)) print(diagnostics_[i]);
  printed_ = diagnostics_.size();
  if (tooManyErrors() && !limitNoticePrinted_) {
    out_ << "flowc: too many errors emitted, stopping now\n";
    limitNoticePrinted_ = true;
  }
  out_.flush();
}

void DiagnosticEngine::writeJson(std::ostream& out, bool& first) const {
  const auto place = [&](const Diagnostic& d) {
    out << "\"file\": " << (d.file ? flow::json_string(d.file->path()) : "null") << ", \"line\": "
        << (d.file && d.loc.valid() ? std::to_string(d.loc.line) : "null") << ", \"column\": "
        << (d.file && d.loc.valid() ? std::to_string(d.loc.column) : "null");
  };
  const std::vector<size_t> order = printOrder(0);
  for (size_t k = 0; k < order.size(); ++k) {
    const Diagnostic& d = diagnostics_[order[k]];
    if (d.severity == Severity::Note && d.group != order[k]) continue; // with its diagnostic, below
    out << (first ? "\n  {" : ",\n  {");
    first = false;
    place(d);
    out << ", \"severity\": \"" << styleOf(d.severity).name << "\", \"message\": " << flow::json_string(d.message)
        << ", \"notes\": [";
    for (size_t j = k + 1; j < order.size() && diagnostics_[order[j]].group == order[k]; ++j) {
      const Diagnostic& n = diagnostics_[order[j]];
      out << (j == k + 1 ? "{" : ", {");
      place(n);
      out << ", \"message\": " << flow::json_string(n.message) << "}";
    }
    out << "]}";
  }
}

void DiagnosticEngine::print(const Diagnostic& d) {
  if (color_) out_ << "\033[1m";
  if (d.file) {
    out_ << d.file->path() << ':';
    if (d.loc.valid()) out_ << d.loc.line << ':' << d.loc.column << ':';
    out_ << ' ';
  } else {
    out_ << "flowc: ";
  }
  const SeverityStyle style = styleOf(d.severity);
  if (color_) out_ << style.color;
  out_ << style.name << ": ";
  if (color_) out_ << "\033[0m\033[1m";
  out_ << d.message;
  if (color_) out_ << "\033[0m";
  out_ << '\n';
  if (d.file && d.loc.valid()) {
    std::string_view line = d.file->lineText(d.loc.line);
    out_ << line << '\n';
    if (color_) out_ << "\033[1;32m";
    out_ << caretLine(line, d.loc.column);
    if (color_) out_ << "\033[0m";
    out_ << '\n';
  }
}

} // namespace flow
