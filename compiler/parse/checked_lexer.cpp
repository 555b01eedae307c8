#include "parse/checked_lexer.hpp"

#include <CommonToken.h>
#include <cctype>
#include <utility>

#include "parse/literals.hpp"

namespace flow::parse {

namespace {
const char* kUnits = "B, KiB, MiB, GiB or TiB";

bool isDecimalPrefix(const std::string& s, size_t& end) {
  end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
  if (end + 1 < s.size() && s[end] == '.' && std::isdigit(static_cast<unsigned char>(s[end + 1]))) {
    ++end;
    while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
  }
  return end > 0;
}

std::string printable(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\x%02x", u);
  return buf;
}
} // namespace

std::string describeBadNumber(const std::string& text) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    if (text.size() == 2) return "hexadecimal literal '0x' has no digits";
    for (size_t i = 2; i < text.size(); ++i)
      if (!std::isxdigit(static_cast<unsigned char>(text[i])) && text[i] != '_')
        return "invalid digit " + printable(text[i]) + " in hexadecimal literal '" + text + "'";
  }
  size_t end = 0;
  if (isDecimalPrefix(text, end)) {
    size_t wordStart = end;
    while (wordStart < text.size() && (text[wordStart] == ' ' || text[wordStart] == '\t')) ++wordStart;
    std::string word = text.substr(wordStart);
    bool letters = !word.empty();
    for (char c : word) letters = letters && std::isalpha(static_cast<unsigned char>(c));
    if (!word.empty() && (word[0] == 'e' || word[0] == 'E') && word.size() == 1)
      return "exponent of '" + text + "' has no digits";
    bool unitLike = letters && (word.back() == 'B' || word.back() == 'b' || word.size() == 1);
    if (unitLike) return "unknown size unit '" + word + "' (use " + kUnits + ")";
    if (!word.empty() && word[0] == '.') return "invalid number '" + text + "'";
    if (!word.empty() && (word[0] == 'e' || word[0] == 'E'))
      return "exponent of '" + text + "' has no digits";
  }
  return "invalid number '" + text + "'";
}

std::string describeBadSize(const std::string& text) {
  size_t end = 0;
  isDecimalPrefix(text, end);
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return "unknown size unit '" + text.substr(end) + "' (use " + kUnits + ")";
}

void CheckedLexer::report(const antlr4::Token& token, std::string message) {
  diags_.error(&file_, map_.start(&token), std::move(message));
}

std::unique_ptr<antlr4::Token> CheckedLexer::nextToken() {
  std::unique_ptr<antlr4::Token> token = FlowLexer::nextToken();
  auto* writable = dynamic_cast<antlr4::CommonToken*>(token.get());
  if (!writable) return token;
  const std::string previous = std::exchange(previousString_, token->getType() == STRING ? token->getText() : "");
  switch (token->getType()) {
  case BAD_NUMBER:
    report(*token, describeBadNumber(token->getText()));
    writable->setType(INT);
    break;
  case BAD_SIZE:
    report(*token, describeBadSize(token->getText()));
    writable->setType(SIZE);
    break;
  case UNTERMINATED_STRING:
    report(*token, "missing terminating '\"' character");
    writable->setType(STRING);
    writable->setText(token->getText() + "\"");
    break;
  case SINGLE_QUOTED: {
    report(*token, "strings are written in double quotes");
    std::string text = token->getText();
    std::string body = text.size() >= 2 && text.back() == '\'' ? text.substr(1, text.size() - 2) : text.substr(1);
    writable->setType(STRING);
    writable->setText("\"" + body + "\"");
    break;
  }
  case UNTERMINATED_COMMENT:
    report(*token, "unterminated /* comment");
    writable->setChannel(antlr4::Token::HIDDEN_CHANNEL);
    break;
  case BAD_CHAR: {
    std::string text = token->getText();
    std::string shown = text.size() == 1 ? printable(text[0]) : "'" + text + "'";
    std::string hint;
    if (text == "#") hint = "; comments start with //";
    else if (text == "?") hint = "; use if / else";
    else if (text == "$" || text == "@" || text == "`") hint = "";
    // `"{a} {"\t"}"`: the '"' inside the braces ended the string, and the escape after it
    // is no token; the parser's message for a word there (`"{s.find("ab")}"`) says why.
    if (hasOpenInterpolation(previous)) report(*token, kStringEndsInInterpolation);
    else report(*token, "unexpected character " + shown + hint);
    writable->setChannel(antlr4::Token::HIDDEN_CHANNEL);
    break;
  }
  default:
    break;
  }
  return token;
}

} // namespace flow::parse
