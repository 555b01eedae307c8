#pragma once
// The code generator's state and its parts: types and orders (emit_types.cpp),
// expressions (emit_expr.cpp), keys (emit_keys.cpp), segments of pipelines from the
// plan's nodes (emit_pipeline.cpp), each node kind's code (nodes/*.cpp, NodeCodegen),
// statements and the program around them (emit_program.cpp).
//
// The node kinds' classes use its helpers: everything below run() is for codegen's own
// files, public so that the classes need no friendship.
#include "codegen/codegen.hpp"
#include "codegen/node_codegen.hpp"

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace flow::codegen {

// Codegen's files (emit_*.cpp, nodes/*.cpp) read the script's AST and sema's symbols and
// types by their own names.
using namespace flow::ast;
using sema::Symbol;
using sema::Type;

// What each runtime class compiled apart costs to compile (seconds of gcc 12 -O2 for
// bfs.flow's, with the precompiled runtime loaded): flowc build balances its parts with
// these and GeneratedCpp::mainCost.
inline constexpr double kRunsCreatorCost = 1.4;
inline constexpr double kRunsMergerCost = 1.8;
inline constexpr double kQueueCost = 3.0;
inline constexpr double kVectorCost = 0.7;
inline constexpr double kHashReduceCost = 1.0; // a reduce's hash table, in main()

class Generator {
public:
  Generator(const sema::CheckedProgram& program, const plan::Plan& plan, const CodegenOptions& options);
  GeneratedCpp run();

  /// `code` as clang-format lays it out (unless CodegenOptions::format is off).
  std::string format(const std::string& code) const;
  // ---- names and types (emit_types.cpp)
  std::string name(const sema::Symbol* s);
  static std::string mangle(const std::string& scriptName);   // a value, field or loop variable
  static std::string typeName(const std::string& scriptName); // a record or an order
  /// A field as C++ names it: mangled in Flow's records, as declared in imported ones.
  static std::string fieldName(const sema::Type* record, const std::string& field);
  std::string type(const sema::Type* t) const;
  /// A queue's element type: bool is stored as flow::script::stored_bool, since the
  /// queue keeps elements in std::vector (whose bool specialization holds bits).
  std::string queueElement(const sema::Type* t) const;
  /// Values larger than this (bytes) are put on the heap, not the stack.
  static constexpr uint64_t kLargestStackValue = 64 << 10;
  std::string orderType(const sema::OrderInfo* o);
  std::string where(SourceLoc loc) const; // a C++ string literal "file:line:col"
  std::string path(const ast::PathRef& p); // a path literal, or the path param's variable
  void emitRecords();
  void emitOrders();
  void emitOrder(const sema::OrderInfo& o, const std::string& cppName);
  struct OrderKey {
    std::string path; // ".src", ".key[0]", "" for the element itself
    const sema::Type* type;
    bool descending;
  };
  void emitOrderBody(const std::vector<OrderKey>& keys, const std::string& elementType);
  void emitTextFields();
  std::string textFields(const sema::Type* t);

  // ---- expressions (emit_expr.cpp)
  std::string expr(const ast::Expr& e);
  std::string literal(const ast::Expr& e);
  std::string integerLiteral(const sema::Type* t, __int128 value); // the value, wrapped to t
  std::string binary(const ast::BinaryExpr& e);
  std::string binary(const ast::BinaryExpr& e, const std::string& lhs, const std::string& rhs);
  /// combine(operands' code), with the operands evaluated left to right as the script
  /// reads when more than one has a side effect (rand(), an imported C++ function).
  std::string leftToRight(const std::vector<const ast::Expr*>& operands,
                          const std::function<std::string(const std::vector<std::string>&)>& combine);
  /// Whether +, -, * and negation in type t need flow::script's wrapping helpers: plain
  /// C++ operators are defined (and wrap) only for unsigned types at least as wide as int.
  static bool needsWrapHelper(const sema::Type* t);
  static const char* wrapHelper(ast::BinaryOp op); // "add", "sub", "mul", or null
  std::string call(const ast::CallExpr& e);
  std::string method(const ast::MethodCallExpr& e);
  std::string recordInit(const ast::RecordInitExpr& e);
  /// The array or vector `a[i]` indexes (null for a fixed array value).
  static const sema::Symbol* indexed(const ast::IndexExpr& e);
  /// The target of an assignment: `v[i]` of a vector changes the element in its cache.
  std::string assignTarget(const ast::Expr& e);
  /// `array a: T[n];`
  void emitArray(const ast::ArrayDecl& d);
  /// Emits, before a statement, the pipelines of the aggregates its expressions call.
  void hoistAggregates(const ast::Expr& e);
  bool hasAggregate(const ast::Expr& e) const;

  // ---- pipelines (emit_pipeline.cpp)
  /// The class that generates nodes of n's kind.
  NodeCodegen& codeOf(const Node& n);
  void emitOwner(const plan::Owner& owner, bool topLevel);
  /// `phase`: the segment is a phase of its own (begin_phase before it), whose element
  /// count it tells the program once its nodes exist (fl_program.expect).
  void emitSegment(const std::vector<int>& nodes, bool phase = false);
  /// The elements node `n` will put out, as C++ evaluated after the segment's nodes are
  /// declared (a merge's count, a file's size, a vector's length); "" if not known.
  std::string runtimeCount(const plan::Node& n);
  /// The sum of the counts of n's inputs, or "" if one is not known.
  std::string sumOfCounts(const plan::Node& n);
  /// A segment's loop over the pull stream of `n` (a reader, a sort's merge, a merge, join or zip).
  void pullLoop(const plan::Node& n, const Segment& segment);
  /// The lambdas of a reduce: combine (the script's function, with the group's keys
  /// restored), and the keys' equality and hash.
  void declareCombine(const plan::Node& n, const ast::ReduceStage& r);
  std::string sameKeys(const std::vector<sema::OrderKeyInfo>& keys, const sema::Type* element);
  /// Whether a float is part of t (where the generated code sees it: not in an imported record).
  static bool holdsFloat(const sema::Type* t);
  /// C++ for a < b and a == b of keys of type t (a scalar or an array of scalars): `<` and
  /// `==` for integers and bools, the runtime's total order (flow/script/total_order.hpp)
  /// where floats take part, so that NaN and -0.0 sort and group one way everywhere.
  static std::string keyLess(const sema::Type* t, const std::string& a, const std::string& b);
  static std::string keyEqual(const sema::Type* t, const std::string& a, const std::string& b);
  std::string hashKeys(const ast::ReduceStage& r);
  static std::vector<sema::OrderKeyInfo> keysOf(const sema::OrderInfo* order);
  std::string keyPath(const sema::OrderKeyInfo& key, const sema::Type* element) const;
  std::string pulledInput(const plan::Node& input); // its pull stream, written out as read where it must be
  bool hasDownstreamLambda(const plan::Node& n);
  /// `[](const T& a, const T& b) { … }`: whether two elements have the same `unique` keys
  /// (in the total order), or "" for a whole element without floats (the runtime's ==).
  std::string uniqueKeysEqual(const ast::UniqueStage& u) const;
  void emitStageStatements(const plan::Node& stage, const std::vector<ast::StmtPtr>& body);
  /// Counts the element `var` that `from` hands on, and generates its consumers' code for it.
  void consume(const plan::Node& from, const std::string& var, const Segment& segment);
  const plan::Node* materializerOf(const plan::Node& n) const; // the node writing n out for later readers
  bool downstreamOfLambda(const plan::Node& n, const std::set<int>& inSegment);
  void stopChecks(const std::vector<std::string>& stops);
  static std::string quote(const std::string& text); // a C++ string literal
  std::string keyPath(const ast::Expr& key, const sema::Type* element) const; // ".s_src", ".s_key[0]"

  std::string memoryOf(const plan::Node& n) const;
  std::string aggregateVar(const plan::Node& n) const; // the variable an aggregate's result is in
  std::string var(const plan::Node& n, const char* role) const;
  /// The counter of node `n` (flow::node_count, reported by --stats=json), marked as
  /// counted: the generated code increments it where `n` hands an element on.
  std::string counter(const plan::Node& n);
  /// The counter of the pushes on a queue or vector, or "" when the plan has no node for
  /// it (a queue declared in a loop body).
  std::string pushCounter(const sema::Symbol& container);

  // ---- statements (emit_program.cpp)
  void emitStatements(const std::vector<ast::StmtPtr>& body);
  void emitStatement(const ast::Stmt& s);
  void emitTopLevel(const ast::Stmt& s);
  void emitRefill(const ast::AssignStmt& a);
  void emitParams();
  void emitPlanComment();
  /// The estimate lambda for `plan`: the static plan's (fl_program.estimate, which also
  /// makes the run's memory plan in fl_nodes), or a calibrated plan's
  /// (fl_program.calibrated_estimate: its own counts in fl_calibrated_nodes, priced with
  /// the memory and choices fl_nodes got, memory_planner::adopt). Data only: the plan's
  /// rows and the nodes to list, each priced by flow::plan::memory_planner::cost.
  void emitEstimate(const plan::Plan& plan, bool calibrated);
  /// A C++ condition that holds when node `id`'s count is exact when the program runs
  /// (generate/range counts, input files of known size, `~ N` on a read, through maps),
  /// "false" when it is a guess or an upper bound (filters, unique, joins, ...).
  std::string exactCount(int id);
  /// The plan's rows (plan::MemoryPlanner::demands, counts scaled by `scale`) and its split.
  void emitMemoryPlan(const plan::Plan& plan, const std::map<int, std::string>& scale, bool calibrated);
  std::string blockBytes() const;

  void line(const std::string& text) {
    // A statement's #line goes before its first line of code (declarations emit none).
    if (!pendingLineDirective_.empty() && !text.empty() && text.rfind("//", 0) != 0) {
      out_ << pendingLineDirective_ << '\n';
      pendingLineDirective_.clear();
    }
    out_ << std::string(indent_ * 2, ' ') << text << '\n';
  }
  /// `head` (a line that opens a brace), then body()'s lines indented, then the `}`.
  template <class Body> void block(const std::string& head, Body&& body) {
    line(head);
    {
      Indent in(*this);
      body();
    }
    line("}");
  }

  std::string pendingLineDirective_; // CodegenOptions::lineDirectives
  struct Indent {
    Generator& g;
    explicit Indent(Generator& gen) : g(gen) { ++g.indent_; }
    ~Indent() { --g.indent_; }
  };

  const sema::CheckedProgram& program_;
  const plan::Plan& plan_;
  NodeCodegenTable codegen_;
  CodegenOptions options_;
  std::ostringstream out_;
  int indent_ = 0;

  std::map<const sema::Symbol*, std::string> names_;
  std::set<std::string> usedNames_;
  std::map<const sema::OrderInfo*, std::string> orderNames_;
  std::map<const sema::Type*, std::string> textFieldTypes_;
  std::map<const ast::CallExpr*, std::string> aggregateVars_; // the variable holding its result
  std::vector<std::vector<int>> consumers_;
  std::set<int> pulled_; // the current segment's nodes that a merge, join or zip pulls from
  std::set<int> counted_; // the nodes whose counter the generated code increments
  // The runtime classes flowc build may compile apart (codegen.hpp: PartClass), each
  // once, in the order of their first use: the class → its relative compile cost.
  std::vector<std::pair<std::string, double>> partClasses_;
  /// `cls` (a runtime class of the script's types) may be compiled in a part of its own.
  void compiledApart(const std::string& cls, double cost);
  double classesInMainCost_ = 0; // runtime classes of types only main() can name (a reduce's combine lambda)
  void emitPartClasses();

  // Inside a lambda (the downstream of a for stage): `continue` and `break` of the
  // enclosing loop become `return` and a stop flag.
  struct LoopContext {
    bool inLambda = false;
    std::string stopFlag;
    bool isWhile = false; // a while loop: the pipelines in it are phases of their own, each round
  };
  std::vector<LoopContext> loops_;
  /// The queues and vectors declared in the blocks being generated (the script's top
  /// level first), innermost block last, each with the loop depth at its declaration.
  /// As a phase ends (freeAfterPhase), a queue whose last phase it was frees its storage
  /// and a vector pushed in it gives its buffers back — not where a loop opened since the
  /// declaration may run the phase again (its next round would need them).
  struct ScopedContainer {
    const Symbol* symbol;
    const Node* queue; // a queue's node; null for a vector
    size_t loopDepth;
  };
  std::vector<std::vector<ScopedContainer>> scopedContainers_;
  std::vector<std::string> emitTargets_; // the lambda an `emit` calls, innermost last
  int lambdaDepth_ = 0; // inside the downstream of a for stage (a lambda its emits call)
  /// What the queues and vectors of the open blocks give back as `phase` ends
  /// (scopedContainers_).
  void freeAfterPhase(int phase);
  /// Whether `s` is one of the script's top-level statements (not in a block).
  bool isTopLevelItem(const Stmt* s) const;
  /// Code whose pipelines are phases: not in a for loop body, a for stage or its lambda
  /// (the top level, and while loops there, whose pipelines run as phases each round).
  bool atTopLevel() const {
    for (const LoopContext& l : loops_)
      if (!l.isWhile) return false;
    return emitTargets_.empty() && lambdaDepth_ == 0;
  }
};

/// The run formation of a sort or a reduce (SortRuns, ReduceRuns), declared as its kind
/// needs (`fl_runsN`): each element goes to its runs; as its segment ends, the last runs
/// are written and their result (`fl_sortedN`) waits for its merge, its partner.
template <Node::Kind K> struct RunsCodegen : KindCodegen<K> {
  void element(const Node& n, const std::string& in, const Segment&) override {
    this->g->line(this->g->var(n, "runs") + ".push(" + in + ");");
  }
  void finish(const Node& n) override {
    // The last runs are written before the phase ends, so their I/O counts in it.
    this->g->line("auto " + this->g->var(n, "sorted") + " = " + this->g->var(n, "runs") + ".result();");
  }
};

/// The merge of a sort's or a reduce's runs (fl_mergeN): read where its segment starts,
/// closed where it ends, so its buffers go back even when a join or zip stops before its
/// end.
template <Node::Kind K> struct RunsMergeCodegen : KindCodegen<K> {
  std::string pullSource(const Node& n) const override { return this->g->var(n, "merge"); }
  void finish(const Node& n) override {
    this->g->line(this->g->var(n, "merge") + ".close(); // its buffers go back as its phase ends");
  }
};

} // namespace flow::codegen
