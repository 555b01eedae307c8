#pragma once
// The generated lexer, plus lexical diagnostics. The grammar turns malformed input into
// tokens of its own (BAD_CHAR, BAD_NUMBER, UNTERMINATED_STRING, …); this lexer reports
// each one once, in words, and hands the parser a repaired token so one typo gives one
// error instead of a cascade.
#include "FlowLexer.h"
#include "ast/diagnostics.hpp"
#include "parse/location_map.hpp"

namespace flow::parse {

class CheckedLexer : public grammar::FlowLexer {
public:
  CheckedLexer(antlr4::CharStream* input, const SourceFile& file, DiagnosticEngine& diags,
               LocationMap map)
      : FlowLexer(input), file_(file), diags_(diags), map_(map) {}

  std::unique_ptr<antlr4::Token> nextToken() override;

private:
  void report(const antlr4::Token& token, std::string message);

  const SourceFile& file_;
  DiagnosticEngine& diags_;
  LocationMap map_;
  std::string previousString_; // the last token's text when it was a string literal
};

/// Explains why `text` (a BAD_NUMBER or BAD_SIZE token) is not a number or size.
std::string describeBadNumber(const std::string& text);
/// Explains a BAD_SIZE token (`8 Bytes`): a known unit run into more letters.
std::string describeBadSize(const std::string& text);

} // namespace flow::parse
