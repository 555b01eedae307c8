#pragma once
// A script's text and the positions in it that diagnostics point at.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flow {

/// A position in a source file: 1-based line and column (columns count characters).
/// `origin` says which text it is in: 0 for the file being reported on (the script),
/// else an entry of the origin table below (a module, or a function body expanded at a
/// call).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t origin = 0;
  bool valid() const { return line != 0; }
};

class SourceFile;

/// Where the text of a location with a nonzero origin comes from: a module file, or the
/// body of a function (in `file`) expanded at `call`, which has an origin of its own.
struct SourceOrigin {
  const SourceFile* file = nullptr;
  SourceLoc call;        // valid for an expansion
  std::string function;  // the function expanded, for an expansion
};

/// The process's origin table: the compiler compiles one script per process.
uint32_t addSourceOrigin(SourceOrigin origin);
const SourceOrigin& sourceOrigin(uint32_t id);

/// "12:3" for a place in the script; "graph.flow:12:3" for one in a module or a
/// function body, with the call it was expanded at: "graph.flow:12:3 via 40:5".
std::string describe(SourceLoc loc);

/// The text of one script, with the start of every line indexed for diagnostics.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);

  /// Reads a file ("-": standard input, named <stdin>); returns false and sets `error`
  /// when it cannot be read.
  static bool load(const std::string& path, SourceFile& out, std::string& error);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  /// The text of line `line` (1-based) without its line break; empty if out of range.
  std::string_view lineText(uint32_t line) const;

private:
  std::string path_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

} // namespace flow
