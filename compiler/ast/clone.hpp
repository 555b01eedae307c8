#pragma once
// Deep copies of AST nodes, with hooks that rename and substitute on the way. Two jobs
// use it: loading a module (its declarations get the module's prefix, `Edge` becomes
// `graph.Edge`, and every location is marked as the module's) and expanding a function
// at a call (parameters replaced by the arguments, the body's own names made unique,
// locations marked with the call). Copies carry no sema annotations: they are checked
// where they land.
#include "ast/ast.hpp"

#include <optional>

namespace flow::ast {

class Cloner {
public:
  virtual ~Cloner() = default;

  ExprPtr expr(const Expr& e);
  StmtPtr stmt(const Stmt& s);
  std::vector<StmtPtr> stmts(const std::vector<StmtPtr>& body);
  PipelinePtr pipeline(const Pipeline& p);
  TypeRefPtr type(const TypeRef& t);

protected:
  /// Every location copied.
  virtual SourceLoc at(SourceLoc loc) { return loc; }
  /// A value's name, where it is declared and where it is used (a one-part name).
  virtual std::string rename(const std::string& name) { return name; }
  /// A replacement for a use of a name, or null to copy (and rename) it.
  virtual ExprPtr substitute(const NameExpr&) { return nullptr; }
  /// A record's, order's or type's name (a one-part name).
  virtual std::string renameType(const std::string& name) { return name; }
  /// A replacement for a named type (a type parameter), or null to copy it.
  virtual TypeRefPtr substituteType(const NamedType&) { return nullptr; }
  /// A replacement for a named order (an order parameter), or none to copy it.
  virtual std::optional<OrderRef> substituteOrder(const OrderRef&) { return std::nullopt; }
  /// The module `alias` names (its declarations are "module.name"), or "" if none:
  /// `graph.degrees(s)` (a method call on `graph`) becomes a call of "graph.degrees".
  virtual std::string moduleOf(const std::string& /*alias*/) { return ""; }
  /// `m.Name` written where no `use` names a module m.
  virtual void unknownModule(const std::string& /*alias*/, SourceLoc /*loc*/) {}

private:
  QualifiedName valueName(const QualifiedName& n);
  QualifiedName typeName(const QualifiedName& n);
  OrderRef order(const OrderRef& o);
  OrderKey orderKey(const OrderKey& k);
  ExprPtr key(const Expr& e);
  bool inKey_ = false;
  StringLiteral literal(const StringLiteral& s);
  PathRef path(const PathRef& p);
  std::optional<Estimate> estimate(const std::optional<Estimate>& e);
  Lambda lambda(const Lambda& l);
  void elementVar(ElementVar& out, const ElementVar& v); // renamed; its symbol is sema's
  JoinKey joinKey(const JoinKey& k);
  SourcePtr source(const Source& s);
  StagePtr stage(const Stage& s);
  FnParam fnParam(const FnParam& p);
  template <class T> std::unique_ptr<T> fresh(SourceLoc loc) {
    auto node = std::make_unique<T>();
    node->loc = at(loc);
    return node;
  }
  ExprPtr optExpr(const ExprPtr& e) { return e ? expr(*e) : nullptr; }
  TypeRefPtr optType(const TypeRefPtr& t) { return t ? type(*t) : nullptr; }
  PipelinePtr optPipeline(const PipelinePtr& p) { return p ? pipeline(*p) : nullptr; }
};

} // namespace flow::ast
