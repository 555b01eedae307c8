#pragma once
// Parse tree → AST. No logic beyond building nodes, except decoding literals (numbers,
// sizes, strings and their interpolations), whose errors it reports.
#include "FlowParser.h"
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "parse/location_map.hpp"

namespace flow::parse {

/// The nesting levels (see kMaxNesting) around `node` in its parse tree.
unsigned nestingDepth(antlr4::tree::ParseTree* node);

class AstBuilder {
public:
  using P = grammar::FlowParser;
  AstBuilder(const SourceFile& file, DiagnosticEngine& diags, LocationMap map);

  std::unique_ptr<ast::Program> program(P::ProgramContext* ctx);
  ast::ExprPtr expr(P::ExprContext* ctx);

private:
  ast::StmtPtr declaration(P::DeclarationContext* ctx);
  ast::StmtPtr sizeDecl(SourceLoc at, P::SizeContext* ctx, bool isBlock);
  ast::TypeRefPtr type(P::TypeContext* ctx);
  ast::QualifiedName qualifiedName(P::QualifiedNameContext* ctx);
  ast::QualifiedName moduleName(P::NameContext* module, P::NameContext* member);
  ast::FnParam fnType(P::FnTypeContext* ctx);
  ast::PathRef pathRef(P::PathRefContext* ctx);
  ast::CsvOptions csvOptions(const std::vector<P::CsvOptionContext*>& options);
  ast::OrderRef orderRef(P::OrderRefContext* ctx);
  ast::PipelinePtr pipeline(P::PipelineContext* ctx);
  std::optional<ast::Estimate> estimate(P::EstimateContext* ctx);
  ast::SourcePtr source(P::SourceContext* ctx);
  ast::StagePtr stage(P::StageContext* ctx);
  ast::Lambda lambda(P::LambdaContext* ctx);
  ast::JoinKey joinKey(P::JoinKeyContext* ctx);
  std::vector<ast::StmtPtr> block(P::BlockContext* ctx);
  ast::StmtPtr ifStatement(P::IfStatementContext* ctx);
  ast::StmtPtr statement(P::StatementContext* ctx);
  ast::ExprPtr primary(P::PrimaryContext* ctx);
  ast::ExprPtr number(P::NumberContext* ctx);
  ast::ExprPtr ifExpr(P::IfExprContext* ctx);
  std::vector<ast::ExprPtr> arguments(P::ArgumentsContext* ctx);
  ast::StringLiteral stringLiteral(antlr4::tree::TerminalNode* node);

  SourceLoc loc(antlr4::ParserRuleContext* ctx) const;
  SourceLoc loc(antlr4::tree::TerminalNode* node) const;
  SourceLoc loc(antlr4::Token* token) const;
  void elementVar(ast::ElementVar& v, antlr4::tree::TerminalNode* name) const; // its name and where
  void error(SourceLoc at, std::string message);

  const SourceFile& file_;
  DiagnosticEngine& diags_;
  LocationMap map_;
};

} // namespace flow::parse
