#pragma once
// The one way to walk the AST. One child list (visit.cpp) says, for every kind of node,
// its direct children in source order; it is the only code that knows which children
// each kind has, and both walks below come from it, so they can never disagree:
//  - forEachChild and Visitor read const nodes. Passes that look inside expressions and
//    statements (the flow-graph builder, aggregate hoisting in codegen, emit counting)
//    are Visitors: they override visit() for what they care about and return whether to
//    go on into that node's children.
//  - forEachChildSlot and MutatingVisitor hand out each child's owning pointer, so a
//    pass may replace a child where it stands or remember where it stands (expanding a
//    function call into statements does both).
#include "ast/ast.hpp"

#include <functional>
#include <vector>

namespace flow::ast {

// The node families that are children of other nodes: X(Type, member name).
#define FLOW_AST_FAMILIES(X)                                                                                           \
  X(Expr, expr)                                                                                                        \
  X(Stmt, stmt)                                                                                                        \
  X(Pipeline, pipeline)                                                                                                \
  X(Source, source)                                                                                                    \
  X(Stage, stage)                                                                                                      \
  X(TypeRef, type)

/// A child of a node: exactly one pointer is set.
struct Child {
#define FLOW_CHILD_FIELD(T, name) const T* name = nullptr;
  FLOW_AST_FAMILIES(FLOW_CHILD_FIELD)
#undef FLOW_CHILD_FIELD
};
using ChildFn = std::function<void(const Child&)>;

/// A child of a mutable node, as the pointer that owns it: exactly one is set, and what
/// it points to is never null.
struct ChildSlot {
#define FLOW_CHILD_SLOT_FIELD(T, name) std::unique_ptr<T>* name = nullptr;
  FLOW_AST_FAMILIES(FLOW_CHILD_SLOT_FIELD)
#undef FLOW_CHILD_SLOT_FIELD
};
using ChildSlotFn = std::function<void(const ChildSlot&)>;

#define FLOW_FOR_EACH_CHILD(T, name)                                                                                   \
  void forEachChild(const T& node, const ChildFn& fn);                                                                 \
  void forEachChildSlot(T& node, const ChildSlotFn& fn);
FLOW_AST_FAMILIES(FLOW_FOR_EACH_CHILD)
#undef FLOW_FOR_EACH_CHILD

/// A pre-order walk. Each visit() returns true to walk the node's children next.
class Visitor {
public:
  virtual ~Visitor() = default;
#define FLOW_VISIT(T, name)                                                                                            \
  virtual bool visit(const T&) { return true; }
  FLOW_AST_FAMILIES(FLOW_VISIT)
#undef FLOW_VISIT

  void walk(const Child& c);
  template <class T> void walk(const T& node) {
    if (visit(node)) walkChildren(node);
  }
  /// Walks the children of `node` without visiting the node itself.
  template <class T> void walkChildren(const T& node) {
    forEachChild(node, [this](const Child& c) { walk(c); });
  }
};

/// A pre-order walk over mutable nodes. Each visit() gets the pointer that owns the node,
/// may replace the node through it, and returns true to walk the children of whatever
/// the pointer then holds. A pass that wants the children first (post-order) walks them
/// itself with walkChildren() and returns false.
class MutatingVisitor {
public:
  virtual ~MutatingVisitor() = default;
#define FLOW_MUTATING_VISIT(T, name)                                                                                   \
  virtual bool visit(std::unique_ptr<T>&) { return true; }
  FLOW_AST_FAMILIES(FLOW_MUTATING_VISIT)
#undef FLOW_MUTATING_VISIT

  void walk(const ChildSlot& c);
  /// Visits the node `slot` owns, if any, then its children.
  template <class T> void walk(std::unique_ptr<T>& slot) {
    if (slot && visit(slot) && slot) walkChildren(*slot);
  }
  /// Walks the children of `node` without visiting the node itself.
  template <class T> void walkChildren(T& node) {
    forEachChildSlot(node, [this](const ChildSlot& c) { walk(c); });
  }
};

/// The aggregate calls (count, sum, min, max of a stream) an expression or a pipeline
/// runs before its own work starts, outermost first: those in the expression, or in a
/// pipeline's arguments (range bounds, take counts, … of it and of the pipelines it
/// reads). Not searched: the pipelines the aggregates read (their aggregates run inside
/// them) and the bodies of `for` stages (which run per element).
std::vector<const CallExpr*> aggregatesBefore(const Expr& e);
std::vector<const CallExpr*> aggregatesBefore(const Pipeline& p);

/// Whether evaluating `e` draws rand() (in the script functions it expands too).
bool drawsRand(const Expr& e);

} // namespace flow::ast
