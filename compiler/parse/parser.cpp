#include "parse/parser.hpp"

#include "parse/ast_builder.hpp"
#include "parse/checked_lexer.hpp"
#include "parse/syntax_errors.hpp"

#include <antlr4-runtime.h>

namespace flow::parse {

namespace {

/// Lexer, token stream and parser wired to Flow's diagnostics instead of ANTLR's console.
struct FrontEnd {
  antlr4::ANTLRInputStream input;
  CheckedLexer lexer;
  antlr4::CommonTokenStream tokens;
  grammar::FlowParser parser;

  FrontEnd(const std::string& text, const SourceFile& file, DiagnosticEngine& diags, LocationMap map,
           std::string endName)
      : input(text), lexer(&input, file, diags, map), tokens(&lexer), parser(&tokens) {
    lexer.removeErrorListeners();
    parser.removeErrorListeners();
    parser.setErrorHandler(std::make_shared<SyntaxErrorStrategy>(file, diags, map, std::move(endName)));
  }
};

} // namespace

std::unique_ptr<ast::Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags) {
  unsigned errorsBefore = diags.errorCount();
  FrontEnd front(file.text(), file, diags, LocationMap{}, "end of file");
  grammar::FlowParser::ProgramContext* tree = front.parser.program();
  // A tree with syntax errors has holes where recovery skipped or invented tokens;
  // building an AST from it would only produce follow-on errors.
  if (diags.errorCount() != errorsBefore || front.parser.getNumberOfSyntaxErrors() != 0) return nullptr;
  return AstBuilder(file, diags, LocationMap{}).program(tree);
}

ast::ExprPtr parseExpression(const std::string& text, const SourceFile& file,
                             DiagnosticEngine& diags, LocationMap map) {
  unsigned errorsBefore = diags.errorCount();
  FrontEnd front(text, file, diags, map, "'}'");
  grammar::FlowParser::ExprOnlyContext* tree = front.parser.exprOnly();
  if (diags.errorCount() != errorsBefore || front.parser.getNumberOfSyntaxErrors() != 0) return nullptr;
  return AstBuilder(file, diags, map).expr(tree->expr());
}

} // namespace flow::parse
