#pragma once
// Syntax errors in words a user understands. ANTLR's default messages name raw tokens
// ("mismatched input 'x' expecting {';', '|', '+', ...}"); this strategy reports what was
// expected by category ("expected ';'", "expected an expression, found ')'") at the
// position a person would point at, and keeps ANTLR's recovery so one run finds many errors.
#include "ast/diagnostics.hpp"
#include "parse/location_map.hpp"

#include <DefaultErrorStrategy.h>

#include <set>
#include <string>

namespace flow::parse {

class SyntaxErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  /// `endName` is what the end of the input is called: "end of file", or "'}'" for an
  /// expression interpolated into a string.
  SyntaxErrorStrategy(const SourceFile& file, DiagnosticEngine& diags, LocationMap map,
                      std::string endName)
      : file_(file), diags_(diags), map_(map), endName_(std::move(endName)) {}

protected:
  void reportNoViableAlternative(antlr4::Parser* parser, const antlr4::NoViableAltException& e) override;
  void reportInputMismatch(antlr4::Parser* parser, const antlr4::InputMismatchException& e) override;
  void reportFailedPredicate(antlr4::Parser* parser, const antlr4::FailedPredicateException& e) override;
  void reportUnwantedToken(antlr4::Parser* parser) override;
  void reportMissingToken(antlr4::Parser* parser) override;

private:
  /// "expected X, found Y" at Y, or "expected X" just after the previous token when Y
  /// starts a new line (a missing ';' belongs to the line it ends).
  void reportExpected(antlr4::Parser* parser, antlr4::Token* offending,
                      const antlr4::misc::IntervalSet& expected);

  /// True when an error was already reported on the line of either token.
  bool suppressed(antlr4::Token* offending, antlr4::Token* previous) const;

  const SourceFile& file_;
  DiagnosticEngine& diags_;
  LocationMap map_;
  std::string endName_;
  // Reserved words reported where a name was expected (`let sort = 3;`): their later
  // uses as that name are not reported again, one error says it.
  std::set<std::string> reservedAsNames_;
};

/// "';'", "an expression", "',' or '}'" — the expected set in words; empty if too long.
std::string describeExpected(const antlr4::misc::IntervalSet& expected,
                             const antlr4::dfa::Vocabulary& vocabulary);
/// "'print'", "end of file", "string \"abc\"" — a token as a user sees it.
std::string describeToken(const antlr4::Token* token, const std::string& endName);

} // namespace flow::parse
