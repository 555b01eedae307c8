#include "parse/location_map.hpp"

#include <Token.h>

namespace flow::parse {

SourceLoc LocationMap::start(const antlr4::Token* token) const {
  return at(token->getLine(), token->getCharPositionInLine());
}

SourceLoc LocationMap::end(const antlr4::Token* token) const {
  // Tokens that end at the end of a line never contain a line break, except comments,
  // which are skipped; so the end is on the token's own line.
  std::string text = token->getText();
  size_t chars = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++chars;
  return at(token->getLine(), token->getCharPositionInLine() + chars);
}

} // namespace flow::parse
