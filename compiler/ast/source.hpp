#pragma once
// A script's text and the positions in it that diagnostics point at.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flow {

/// A position in a source file: 1-based line and column (columns count characters).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  bool valid() const { return line != 0; }
};

/// The text of one script, with the start of every line indexed for diagnostics.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);

  /// Reads a file; returns false and sets `error` when it cannot be read.
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
