#include "parse/syntax_errors.hpp"

#include "FlowParser.h"
#include "ast/builtins.hpp"
#include "flow/edit_distance.hpp"
#include "parse/literals.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace flow::parse {

using grammar::FlowParser;

namespace {

std::string literalOf(const antlr4::dfa::Vocabulary& vocabulary, size_t type) {
  std::string literal = vocabulary.getLiteralName(type);
  return literal.size() >= 2 ? literal.substr(1, literal.size() - 2) : "";
}

// Token groups, named by their spelling so the lists read like the grammar.
const std::set<std::string> kExpressionStart = {"(", "[", "-", "!", "~", "true", "false", "if"};
// Keywords that may also be names (`to`, `in`, …): listed whenever a name is.
const std::set<std::string> kSoftNames = {"to", "on", "in", "by", "with", "end", "array"};
const std::set<std::string> kDeclarationStart = {"import", "param", "memory", "block", "record",
                                                 "order"};
const std::set<std::string> kStatementStart = {"let", "var", "if", "while", "for", "break",
                                               "continue", "emit", "print", "write",
                                               "write_text", "write_lines", "write_csv", "{", "stream", "vector", "pq", "array"};
const std::set<std::string> kStageStart = {"map", "filter", "sort", "unique", "take", "reduce"};
const std::set<std::string> kSourceStart = {"generate", "range", "read", "read_text", "read_lines", "read_csv", "scan",
                                            "merge", "join", "left_join", "zip", "concat"};
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
  // After `.` or inside a record's braces every keyword may be a field name.
  if (symbols.count(FlowParser::IDENT) && has("desc") && has("filter") && has("let")) {
    for (auto it = literals.begin(); it != literals.end();)
      it = std::isalpha(static_cast<unsigned char>((*it)[0])) ? literals.erase(it) : std::next(it);
    symbols.erase(FlowParser::IDENT);
    words.push_back("a field name");
  }
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

  if (symbols.count(FlowParser::IDENT)) drop(kSoftNames);

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
    // a name here is a stage named by a word (window, sample, …)
    if (!expression && !source) symbols.erase(FlowParser::IDENT);
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

std::string describeToken(const antlr4::Token* token, const std::string& endName) {
  if (!token || token->getType() == antlr4::Token::EOF) return endName;
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

namespace {
/// The last token the parser saw before `token` (prediction may have rewound the stream,
/// so LT(-1) is not it).
antlr4::Token* tokenBefore(antlr4::Parser* parser, antlr4::Token* token) {
  antlr4::TokenStream* tokens = parser->getTokenStream();
  if (!token) return tokens->LT(-1);
  for (size_t i = token->getTokenIndex(); i-- > 0;) {
    antlr4::Token* t = tokens->get(i);
    if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) return t;
  }
  return nullptr;
}
} // namespace

void SyntaxErrorStrategy::reportExpected(antlr4::Parser* parser, antlr4::Token* offending,
                                         const antlr4::misc::IntervalSet& expected) {
  antlr4::Token* previous = tokenBefore(parser, offending);
  if (suppressed(offending, previous)) return;
  // A use of a reserved word declared as a name (at it, or a few tokens after it in the
  // same statement: `while = 4;` fails at the ';'): said once, where it was declared.
  for (antlr4::Token* t = offending ? offending : previous; t; t = tokenBefore(parser, t)) {
    if (reservedAsNames_.count(t->getText())) return;
    const std::string text = t->getText();
    if (t != offending && (text == ";" || text == "{" || text == "}")) break;
    if (offending && t->getTokenIndex() + 4 < offending->getTokenIndex()) break;
  }
  // `} end {` that is not after a for stage's body: the parser took `end` for a name.
  for (antlr4::Token* t = offending; t; t = tokenBefore(parser, t)) {
    if (!offending || t->getTokenIndex() + 3 < offending->getTokenIndex()) break;
    antlr4::Token* before = tokenBefore(parser, t);
    if (t->getText() == "end" && before && before->getText() == "}") {
      diags_.error(&file_, map_.start(t),
                   "'end { … }' is only allowed right after the body of a for stage (pipeline | for x { … } end "
                   "{ … }); a for loop or other block has no end block: put that code after it");
      return;
    }
  }
  // `Indexed<u64>` in a type: the generic types messages show have no name to write.
  if (offending && offending->getText() == "<" && previous && previous->getType() == FlowParser::IDENT) {
    diags_.error(&file_, map_.start(offending),
                 "Flow types take no type arguments: '" + previous->getText() +
                     "<…>' is how messages show a record the language makes (enumerate's Indexed<T>), which "
                     "has no name to write; read its fields, or map it to a record of your own");
    return;
  }
  // `sample 1%`: a percentage where a fraction goes.
  if (previous && previous->getText() == "%")
    if (antlr4::Token* number = tokenBefore(parser, previous);
        number && (number->getType() == FlowParser::INT || number->getType() == FlowParser::FLOAT)) {
      char fraction[32];
      std::snprintf(fraction, sizeof fraction, "%g", std::strtod(number->getText().c_str(), nullptr) / 100);
      diags_.error(&file_, map_.start(number),
                   "'" + number->getText() + "%' is not a number in Flow: write the fraction, " + fraction +
                       " ('%' is the remainder operator)");
      return;
    }
  // `| fitler x => …`: a misspelt stage keyword reads as a stage named by a word, and the
  // parser stops after it. Name the stage it is near.
  for (antlr4::Token* t = previous; t && offending && t->getTokenIndex() + 3 >= offending->getTokenIndex();
       t = tokenBefore(parser, t)) {
    antlr4::Token* pipe = tokenBefore(parser, t);
    if (t->getType() != FlowParser::IDENT || !pipe || pipe->getText() != "|") continue;
    const std::string nearest = flow::nearest_name(t->getText(), ast::stageNames());
    if (nearest.empty()) break;
    diags_.error(&file_, map_.start(t), "unknown stage '" + t->getText() + "'; did you mean '" + nearest + "'?");
    return;
  }
  // `"{s.find("ab")}"`: the '"' inside the braces ended the string, which is left with an
  // open '{'.
  if (previous && previous->getType() == FlowParser::STRING && hasOpenInterpolation(previous->getText())) {
    diags_.error(&file_, map_.start(offending), kStringEndsInInterpolation);
    return;
  }
  // `print "a: " + s;`, `print s;`: print takes one string literal.
  if (previous && previous->getType() == FlowParser::STRING && offending && offending->getText() != ";")
    if (antlr4::Token* keyword = tokenBefore(parser, previous); keyword && keyword->getText() == "print") {
      diags_.error(&file_, map_.start(offending),
                   "print takes one string literal; put values into it with '{…}': print \"a: {s}\";");
      return;
    }
  if (previous && previous->getText() == "print" && offending && offending->getType() == FlowParser::IDENT) {
    diags_.error(&file_, map_.start(offending),
                 "print takes a string literal; put the value into one: print \"{" + offending->getText() + "}\";");
    return;
  }
  std::string what = describeExpected(expected, parser->getVocabulary());
  // Prediction that fails inside `b.` or `a +` reports the set from before the operator;
  // what is missing is the operand after it.
  bool onlyContinuations = !expected.isEmpty();
  for (size_t type : expected.toList())
    onlyContinuations = onlyContinuations && kContinuation.count(literalOf(parser->getVocabulary(), type));
  if (onlyContinuations && previous && kContinuation.count(previous->getText()))
    what = previous->getText() == "." ? "a field or method name" : "an expression";
  // After `=` comes a value or (for a vector, a stream) a pipeline; after `+=` and the
  // like only a value.
  if (what == "a pipeline" && previous && previous->getText() == "=") what = "an expression or a pipeline";
  if (what == "a pipeline" && previous && previous->getText().size() >= 2 && previous->getText().back() == '=' &&
      kContinuation.count(previous->getText()))
    what = "an expression";
  bool atEnd = offending && offending->getType() == antlr4::Token::EOF;
  if (atEnd) {
    // At the end of the input what is missing is what closes the open construct.
    std::vector<std::string> closers;
    for (const char* closer : {"}", ")", "]"})
      if (expected.contains(parser->getTokenType(std::string("'") + closer + "'")))
        closers.push_back(std::string("'") + closer + "'");
    if (!closers.empty()) what = joinWithOr(closers);
  }
  // A keyword where a name was expected (alone or among others: `fn f(filter: u64)`):
  // say it is reserved.
  std::string found;
  const bool nameExpected = what == "a name" || (what.size() > 10 && what.ends_with(" or a name"));
  if (nameExpected && offending && std::isalpha(static_cast<unsigned char>(offending->getText()[0])) &&
      offending->getType() != FlowParser::IDENT && offending->getType() != antlr4::Token::EOF) {
    found = " (a reserved word)";
    reservedAsNames_.insert(offending->getText());
  }
  bool atLineEnd = previous && offending &&
                   (offending->getType() == antlr4::Token::EOF ||
                    offending->getLine() > previous->getLine());
  if (what.empty()) {
    diags_.error(&file_, map_.start(offending), "unexpected " + describeToken(offending, endName_));
  } else if (atLineEnd) {
    std::string tail = atEnd ? " before " + endName_ : "";
    diags_.error(&file_, map_.end(previous), "expected " + what + tail);
  } else {
    diags_.error(&file_, map_.start(offending),
                 "expected " + what + ", found " + describeToken(offending, endName_) + found);
  }
}

void SyntaxErrorStrategy::reportNoViableAlternative(antlr4::Parser* parser,
                                                    const antlr4::NoViableAltException& e) {
  // `if` starts both an if statement and an if expression, so a statement starting with
  // `if` is predicted over the whole condition and block, and a mistake in them fails the
  // prediction at the `if`. Say what the if statement needed instead.
  antlr4::Token* start = e.getStartToken();
  antlr4::Token* offending = e.getOffendingToken();
  if (start && offending && start != offending && start->getText() == "if") {
    auto* tokens = parser->getTokenStream();
    bool inBlock = false;
    for (size_t i = start->getTokenIndex(); i < offending->getTokenIndex(); ++i)
      inBlock = inBlock || tokens->get(i)->getText() == "{";
    if (!inBlock) {
      reportExpected(parser, offending, antlr4::misc::IntervalSet::of(parser->getTokenType("'{'")));
      return;
    }
    antlr4::Token* previous = tokenBefore(parser, offending);
    if (kDeclarationStart.count(offending->getText()) && previous &&
        (previous->getText() == "{" || previous->getText() == ";" || previous->getText() == "}")) {
      diags_.error(&file_, map_.start(offending),
                   "'" + offending->getText() + "' declarations belong at the top level of the script, not in a block");
      return;
    }
  }
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
  if (token->getType() == antlr4::Token::EOF) {
    reportExpected(parser, token, getExpectedTokens(parser));
    return;
  }
  antlr4::misc::IntervalSet expected = getExpectedTokens(parser);
  // Where anything could start (between statements) "expected a statement" says nothing;
  // inside a construct, naming what was expected does.
  std::string what = describeExpected(expected, parser->getVocabulary());
  bool betweenItems = what.rfind("a declaration or statement", 0) == 0 || what.rfind("a statement", 0) == 0;
  if (!betweenItems && !what.empty()) {
    reportExpected(parser, token, expected);
    return;
  }
  if (suppressed(token, tokenBefore(parser, token))) return;
  if (kDeclarationStart.count(token->getText()) && expected.contains(parser->getTokenType("'}'"))) {
    diags_.error(&file_, map_.start(token), "'" + token->getText() + "' declarations belong at the top level of the script, not in a block");
    return;
  }
  diags_.error(&file_, map_.start(token), "unexpected " + describeToken(token, endName_));
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
