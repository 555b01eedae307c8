#include "parse/syntax_errors.hpp"

#include "FlowParser.h"

#include <algorithm>
#include <set>

namespace flow::parse {

using grammar::FlowParser;

namespace {

std::string literalOf(const antlr4::dfa::Vocabulary& vocabulary, size_t type) {
  std::string literal = vocabulary.getLiteralName(type);
  return literal.size() >= 2 ? literal.substr(1, literal.size() - 2) : "";
}

// Token groups, named by their spelling so the lists read like the grammar.
const std::set<std::string> kExpressionStart = {"(", "[", "-", "!", "~", "true", "false"};
const std::set<std::string> kDeclarationStart = {"import", "param", "memory", "block", "record",
                                                 "order", "stream", "vector", "pq"};
const std::set<std::string> kStatementStart = {"let", "var", "if", "while", "for", "break",
                                               "continue", "emit", "print", "write",
                                               "write_text", "{"};
const std::set<std::string> kStageStart = {"map", "filter", "sort", "unique", "take"};
const std::set<std::string> kSourceStart = {"generate", "range", "read", "read_text", "scan",
                                            "merge"};
// Tokens that could continue what came before: operators, `.x`, `[i]`, `as T`, `| stage`.
const std::set<std::string> kContinuation = {
    ".",  "[",  "as", "*",  "/",  "%",  "+",  "-",  "<<", ">>", "&",  "^", "==",
    "!=", "<",  "<=", ">",  ">=", "&&", "||", "|",  "~",  "=",  "+=", "-=", "*=",
    "/=", "%=", "&=", "^=", "<<=", ">>=", "::", "("};

std::string joinWithOr(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " or " : ", ";
    s += items[i];
  }
  return s;
}

} // namespace

std::string describeExpected(const antlr4::misc::IntervalSet& expected,
                             const antlr4::dfa::Vocabulary& vocabulary) {
  std::set<std::string> literals;
  std::set<size_t> symbols;
  for (size_t type : expected.toList()) {
    std::string literal = type == antlr4::Token::EOF ? "" : literalOf(vocabulary, type);
    if (!literal.empty()) literals.insert(literal);
    else symbols.insert(type);
  }
  auto has = [&](const std::string& s) { return literals.count(s) != 0; };
  auto drop = [&](const std::set<std::string>& group) {
    for (const std::string& s : group) literals.erase(s);
  };

  std::vector<std::string> words;
  bool expression = symbols.count(FlowParser::IDENT) && symbols.count(FlowParser::INT) && has("(");
  bool declaration = has("param") && has("record");
  bool statement = has("let") && has("while");
  bool stage = has("map") && has("filter");
  bool source = has("generate") && has("merge");

  // After a complete expression every operator could follow; what is missing is the
  // terminator, so name the others and leave the operators out.
  bool continuable = has("+") || has(".") || has("|");
  if (continuable) {
    std::set<std::string> rest = literals;
    for (const std::string& s : kContinuation) rest.erase(s);
    if (!rest.empty() || expression || statement || declaration || !symbols.empty()) drop(kContinuation);
  }

  if (declaration) {
    drop(kDeclarationStart);
    drop(kStatementStart);
    drop(kExpressionStart);
    words.push_back("a declaration or statement");
    expression = false;
    statement = false;
  } else if (statement) {
    drop(kStatementStart);
    drop(kExpressionStart);
    words.push_back("a statement");
    expression = false;
  }
  if (stage) {
    drop(kStageStart);
    literals.erase("for");
    words.push_back("a pipeline stage");
  }
  if (source) {
    drop(kSourceStart);
    drop(kExpressionStart);
    words.push_back(expression ? "a pipeline" : "a pipeline source");
    expression = false;
  }
  if (expression) {
    drop(kExpressionStart);
    words.push_back("an expression");
  }
  bool consumedSymbols = declaration || statement || source || expression;
  for (const std::string& s : literals) words.push_back("'" + s + "'");
  if (!consumedSymbols || !symbols.count(FlowParser::IDENT)) {
    for (size_t type : symbols) {
      switch (type) {
      case FlowParser::IDENT: words.push_back("a name"); break;
      case FlowParser::INT: case FlowParser::FLOAT:
        if (std::find(words.begin(), words.end(), "a number") == words.end()) words.push_back("a number");
        break;
      case FlowParser::SIZE: words.push_back("a size"); break;
      case FlowParser::STRING: words.push_back("a string"); break;
      case antlr4::Token::EOF: words.push_back("end of file"); break;
      default: break;
      }
    }
  }
  if (words.empty() || words.size() > 5) return "";
  return joinWithOr(words);
}

std::string describeToken(const antlr4::Token* token) {
  if (!token || token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = token->getText();
  if (token->getType() == FlowParser::STRING) {
    if (text.size() > 24) text = text.substr(0, 20) + "...\"";
    return "string " + text;
  }
  if (token->getType() == FlowParser::IDENT) return "name '" + text + "'";
  if (token->getType() == FlowParser::INT || token->getType() == FlowParser::FLOAT)
    return "number '" + text + "'";
  return "'" + text + "'";
}

void SyntaxErrorStrategy::reportExpected(antlr4::Parser* parser, antlr4::Token* offending,
                                         const antlr4::misc::IntervalSet& expected) {
  antlr4::Token* previous = parser->getTokenStream()->LT(-1);
  if (suppressed(offending, previous)) return;
  std::string what = describeExpected(expected, parser->getVocabulary());
  bool atLineEnd = previous && offending &&
                   (offending->getType() == antlr4::Token::EOF ||
                    offending->getLine() > previous->getLine());
  if (what.empty()) {
    diags_.error(&file_, map_.start(offending), "unexpected " + describeToken(offending));
  } else if (atLineEnd) {
    std::string tail = offending->getType() == antlr4::Token::EOF ? " before end of file" : "";
    diags_.error(&file_, map_.end(previous), "expected " + what + tail);
  } else {
    diags_.error(&file_, map_.start(offending),
                 "expected " + what + ", found " + describeToken(offending));
  }
}

void SyntaxErrorStrategy::reportNoViableAlternative(antlr4::Parser* parser,
                                                    const antlr4::NoViableAltException& e) {
  reportExpected(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void SyntaxErrorStrategy::reportInputMismatch(antlr4::Parser* parser,
                                              const antlr4::InputMismatchException& e) {
  reportExpected(parser, e.getOffendingToken(), e.getExpectedTokens());
}

void SyntaxErrorStrategy::reportFailedPredicate(antlr4::Parser* parser,
                                                const antlr4::FailedPredicateException& e) {
  // The grammar has no predicates; kept so nothing falls through to ANTLR's wording.
  reportExpected(parser, e.getOffendingToken(), parser->getExpectedTokens());
}

void SyntaxErrorStrategy::reportUnwantedToken(antlr4::Parser* parser) {
  if (inErrorRecoveryMode(parser)) return;
  beginErrorCondition(parser);
  antlr4::Token* token = parser->getCurrentToken();
  antlr4::misc::IntervalSet expected = getExpectedTokens(parser);
  // Where anything could start (between statements) "expected a statement" says nothing;
  // inside a construct, naming what was expected does.
  bool betweenItems = expected.contains(parser->getTokenType("'param'")) ||
                      expected.contains(parser->getTokenType("'let'"));
  if (!betweenItems) {
    reportExpected(parser, token, expected);
    return;
  }
  if (suppressed(token, parser->getTokenStream()->LT(-1))) return;
  diags_.error(&file_, map_.start(token), "unexpected " + describeToken(token));
}

bool SyntaxErrorStrategy::suppressed(antlr4::Token* offending, antlr4::Token* previous) const {
  // A lexical error already explains what went wrong on this line (a stray character,
  // an unterminated string); the syntax error that follows from it would only repeat it.
  for (antlr4::Token* t : {offending, previous})
    if (t && t->getType() != antlr4::Token::EOF && diags_.hasErrorOnLine(&file_, map_.start(t).line))
      return true;
  return false;
}

void SyntaxErrorStrategy::reportMissingToken(antlr4::Parser* parser) {
  if (inErrorRecoveryMode(parser)) return;
  beginErrorCondition(parser);
  reportExpected(parser, parser->getCurrentToken(), getExpectedTokens(parser));
}

} // namespace flow::parse
