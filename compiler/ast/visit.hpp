#pragma once
// The one way to walk the AST. forEachChild lists a node's direct children, in source
// order; it is the only code that knows which children each kind of node has. Passes
// that look inside expressions and statements (the flow-graph builder, aggregate
// hoisting in codegen, emit counting) are Visitors: they override visit() for what they
// care about and return whether to go on into that node's children.
#include "ast/ast.hpp"

#include <functional>

namespace flow::ast {

/// A child of a node: exactly one pointer is set.
struct Child {
  const Expr* expr = nullptr;
  const Stmt* stmt = nullptr;
  const Pipeline* pipeline = nullptr;
  const Source* source = nullptr;
  const Stage* stage = nullptr;
  const TypeRef* type = nullptr;
};
using ChildFn = std::function<void(const Child&)>;

void forEachChild(const Expr& e, const ChildFn& fn);
void forEachChild(const Stmt& s, const ChildFn& fn);
void forEachChild(const Pipeline& p, const ChildFn& fn);
void forEachChild(const Source& s, const ChildFn& fn);
void forEachChild(const Stage& s, const ChildFn& fn);
void forEachChild(const TypeRef& t, const ChildFn& fn);

/// A pre-order walk. Each visit() returns true to walk the node's children next.
class Visitor {
public:
  virtual ~Visitor() = default;
  virtual bool visit(const Expr&) { return true; }
  virtual bool visit(const Stmt&) { return true; }
  virtual bool visit(const Pipeline&) { return true; }
  virtual bool visit(const Source&) { return true; }
  virtual bool visit(const Stage&) { return true; }
  virtual bool visit(const TypeRef&) { return true; }

  void walk(const Child& c);
  template <class T> void walk(const T& node) {
    if (visit(node)) forEachChild(node, [this](const Child& c) { walk(c); });
  }
  /// Walks the children of `node` without visiting the node itself.
  template <class T> void walkChildren(const T& node) {
    forEachChild(node, [this](const Child& c) { walk(c); });
  }
};

} // namespace flow::ast
