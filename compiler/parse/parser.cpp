#include "parse/parser.hpp"

#include "parse/ast_builder.hpp"
#include "parse/checked_lexer.hpp"
#include "parse/syntax_errors.hpp"

#include <antlr4-runtime.h>
#include <algorithm>
#include <vector>

namespace flow::parse {

namespace {

/// The levels a rule's context adds to the nesting depth.
unsigned nestingWeight(size_t ruleIndex) {
  using P = grammar::FlowParser;
  switch (ruleIndex) {
  case P::RuleExpr:
  case P::RuleBlock:
  case P::RuleType:
  case P::RulePipeline:
  case P::RuleIfStatement: return 1;
  default: return 0;
  }
}

/// Thrown out of the generated parser when the nesting limit is passed. It is no
/// RecognitionException, so no rule catches it: parsing stops at once, before the
/// parser's own recursion (or anything after it) can go deeper.
struct NestingTooDeep {
  antlr4::Token* at;
};

/// Counts the nesting levels open while the parser runs (see kMaxNesting) and stops the
/// parser at the first one past the limit. A parse listener sees every rule context enter
/// and exit; the operators of a left-recursive chain (`a + b + c`) reach it as an exit and
/// an enter each, so GuardedParser counts those: each one nests the tree one level more.
class NestingGuard : public antlr4::tree::ParseTreeListener {
public:
  NestingGuard(antlr4::Parser& parser, unsigned depth) : parser_(parser), depth_(depth) {}

  void add(unsigned levels) {
    if (stopped_) return;
    depth_ += levels;
    if (depth_ > kMaxNesting) {
      stopped_ = true;
      throw NestingTooDeep{parser_.getCurrentToken()};
    }
  }
  void remove(unsigned levels) {
    // Error recovery may end more levels than it began (`total += p.` before a `}`): the
    // count stays at zero rather than wrapping around to a nesting error on the next line.
    if (!stopped_) depth_ -= std::min(depth_, levels);
  }

  void enterEveryRule(antlr4::ParserRuleContext* ctx) override { add(nestingWeight(ctx->getRuleIndex())); }
  void exitEveryRule(antlr4::ParserRuleContext* ctx) override { remove(nestingWeight(ctx->getRuleIndex())); }
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}

private:
  antlr4::Parser& parser_;
  unsigned depth_;
  bool stopped_ = false;
};

/// The generated parser, with the levels of left-recursive chains counted.
class GuardedParser : public grammar::FlowParser {
public:
  GuardedParser(antlr4::TokenStream* input, unsigned depth)
      : FlowParser(input), startDepth_(depth), guard_(*this, depth) {
    addParseListener(&guard_);
  }
  ~GuardedParser() override { removeParseListener(&guard_); }
  /// The nesting levels open where this parse starts (an interpolated expression's).
  unsigned depth() const { return startDepth_; }

  using FlowParser::enterRecursionRule;
  void enterRecursionRule(antlr4::ParserRuleContext* ctx, size_t state, size_t rule, int precedence) override {
    chains_.push_back(0);
    FlowParser::enterRecursionRule(ctx, state, rule, precedence);
  }
  void pushNewRecursionContext(antlr4::ParserRuleContext* ctx, size_t state, size_t rule) override {
    FlowParser::pushNewRecursionContext(ctx, state, rule);
    const unsigned w = nestingWeight(rule);
    chains_.back() += w;
    guard_.add(w);
  }
  void unrollRecursionContexts(antlr4::ParserRuleContext* parent) override {
    guard_.remove(chains_.back());
    chains_.pop_back();
    FlowParser::unrollRecursionContexts(parent);
  }

private:
  unsigned startDepth_;
  NestingGuard guard_;
  std::vector<unsigned> chains_; // levels added by each open left-recursive rule
};

/// Lexer, token stream and parser wired to Flow's diagnostics instead of ANTLR's console.
struct FrontEnd {
  antlr4::ANTLRInputStream input;
  CheckedLexer lexer;
  antlr4::CommonTokenStream tokens;
  GuardedParser parser;
  const SourceFile& file;
  DiagnosticEngine& diags;
  LocationMap map;

  FrontEnd(const std::string& text, const SourceFile& file, DiagnosticEngine& diags, LocationMap map,
           std::string endName, unsigned depth)
      : input(text), lexer(&input, file, diags, map), tokens(&lexer), parser(&tokens, depth),
        file(file), diags(diags), map(map) {
    lexer.removeErrorListeners();
    parser.removeErrorListeners();
    parser.setErrorHandler(std::make_shared<SyntaxErrorStrategy>(file, diags, map, std::move(endName)));
  }

  /// Runs `rule` (parser.program() or parser.exprOnly()); null after reporting nesting
  /// past the limit.
  template <class Rule> auto parse(Rule rule) -> decltype(rule(parser)) {
    try {
      bracketsWithinLimit();
      return rule(parser);
    } catch (const NestingTooDeep& e) {
      diags.error(&file, map.start(e.at),
                  "nesting too deep: more than " + std::to_string(kMaxNesting) +
                      " levels of expressions, blocks and types (each bracket, operator, call and "
                      "'else if' is one level; see Limits in docs/language.md)");
      return nullptr;
    }
  }

  /// Brackets alone past the limit are nesting past it (each is a level): reported from
  /// the tokens, before the parser's prediction, which looks ahead over a whole nested `if`
  /// (it may be an if expression) and took 27 s and 1.2 GB for 20,000 of them.
  void bracketsWithinLimit() {
    tokens.fill();
    unsigned depth = parser.depth();
    for (antlr4::Token* t : tokens.getTokens()) {
      const std::string text = t->getText();
      if (text.size() != 1) continue;
      if (text == "{" || text == "(" || text == "[") {
        if (++depth > kMaxNesting) throw NestingTooDeep{t};
      } else if ((text == "}" || text == ")" || text == "]") && depth > 0) {
        --depth;
      }
    }
  }
};

} // namespace

unsigned nestingDepth(antlr4::tree::ParseTree* node) {
  unsigned depth = 0;
  for (; node; node = node->parent)
    if (auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(node)) depth += nestingWeight(ctx->getRuleIndex());
  return depth;
}

std::unique_ptr<ast::Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags) {
  unsigned errorsBefore = diags.errorsReported();
  if (file.text().size() > kMaxScriptBytes) {
    diags.error(&file, {}, "the script is " + std::to_string(file.text().size()) + " bytes; flowc reads scripts of at most " +
                               std::to_string(kMaxScriptBytes >> 20) + " MiB (" + std::to_string(kMaxScriptBytes) +
                               " bytes)");
    return nullptr;
  }
  FrontEnd front(file.text(), file, diags, LocationMap{}, "end of file", 0);
  grammar::FlowParser::ProgramContext* tree = front.parse([](grammar::FlowParser& p) { return p.program(); });
  // A tree with syntax errors has holes where recovery skipped or invented tokens;
  // building an AST from it would only produce follow-on errors.
  if (!tree || diags.errorsReported() != errorsBefore || front.parser.getNumberOfSyntaxErrors() != 0) return nullptr;
  return AstBuilder(file, diags, LocationMap{}).program(tree);
}

ast::ExprPtr parseExpression(const std::string& text, const SourceFile& file,
                             DiagnosticEngine& diags, LocationMap map, unsigned depth) {
  unsigned errorsBefore = diags.errorsReported();
  FrontEnd front(text, file, diags, map, "'}'", depth);
  grammar::FlowParser::ExprOnlyContext* tree = front.parse([](grammar::FlowParser& p) { return p.exprOnly(); });
  if (!tree || diags.errorsReported() != errorsBefore || front.parser.getNumberOfSyntaxErrors() != 0) return nullptr;
  return AstBuilder(file, diags, map).expr(tree->expr());
}

} // namespace flow::parse
