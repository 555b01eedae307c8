#pragma once
// Maps ANTLR token positions to script positions. A whole file starts at 1:1; an
// expression interpolated into a string starts where its text stands inside the string.
#include "ast/source.hpp"

#include <cstddef>

namespace antlr4 {
class Token;
}

namespace flow::parse {

struct LocationMap {
  uint32_t baseLine = 1;
  uint32_t baseColumn = 1;

  SourceLoc at(size_t tokenLine, size_t charPositionInLine) const {
    uint32_t line = baseLine + static_cast<uint32_t>(tokenLine) - 1;
    uint32_t column = static_cast<uint32_t>(charPositionInLine) + 1;
    if (tokenLine == 1) column += baseColumn - 1;
    return {line, column};
  }
  SourceLoc start(const antlr4::Token* token) const;
  /// The position just after the token's last character (where a missing ';' belongs).
  SourceLoc end(const antlr4::Token* token) const;
};

} // namespace flow::parse
