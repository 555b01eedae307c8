#pragma once
// The semantic checker: resolves every name, types every expression and pipeline stage,
// and reports each misuse as a Flow diagnostic at the script's own line. Its four parts
// live in check_types.cpp (types, records, imports, orders), check_exprs.cpp,
// check_pipelines.cpp and check_stmts.cpp (statements, declarations, the driver).
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "sema/sema.hpp"
#include "sema/symbols.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace flow::sema {

class Checker {
public:
  Checker(ast::Program& program, CheckedProgram& out, DiagnosticEngine& diags, const SemaOptions& options);
  void run();

private:
  // ---- scopes
  Symbol& declare(Symbol symbol);           // reports a redefinition in the same scope
  Symbol* lookup(const std::string& name);  // innermost first
  /// Declares `v`'s variable, of kind `kind` and type `type`, and points v at its symbol.
  void declareElement(ast::ElementVar& v, Symbol::Kind kind, const Type* type);
  /// `runsWhenOuterRuns`: a plain `{ … }` block, which runs whenever the code around it
  /// runs (unlike the body of an if, else or loop).
  void pushScope(bool runsWhenOuterRuns = false) {
    scopes_.emplace_back();
    blockIds_.push_back(runsWhenOuterRuns && !blockIds_.empty() ? blockIds_.back() : nextBlockId_++);
  }
  void popScope() {
    scopes_.pop_back();
    blockIds_.pop_back();
  }
  std::string suggest(const std::string& name, const std::vector<std::string>& candidates) const;
  std::vector<std::string> namesInScope() const;

  // ---- diagnostics
  void error(SourceLoc loc, std::string message) { diags_.error(file_, loc, std::move(message)); }
  void note(SourceLoc loc, std::string message) { diags_.note(file_, loc, std::move(message)); }

  // ---- types, records, imports, orders (check_types.cpp)
  void importHeader(ast::ImportDecl& decl);
  void declareRecord(ast::RecordDecl& decl);
  void layOutRecord(RecordInfo& record, ast::RecordDecl& decl);
  const Type* resolveType(ast::TypeRef& ref);
  const Type* scalarByName(const std::string& name) const;
  /// A key path as the user wrote it: `e.src`, `key[0]`.
  std::string exprText(const ast::Expr& e) const;
  const Type* importedType(const CppType& type, SourceLoc loc, const std::string& what);
  const RecordInfo* importedRecord(const std::string& cppName, SourceLoc loc);
  void declareOrder(ast::OrderDecl& decl);
  /// The order a pipeline is known to be in (its last sort, or the merge it is), if any.
  const OrderInfo* knownOrder(const ast::Pipeline& p) const;
  const OrderInfo* resolveOrder(ast::OrderRef& ref, const Type* element, const std::string& user, bool needsSentinels);
  const OrderInfo* builtinOrder(bool descending, const Type* element);
  /// A key of an order or of `unique (…)`: a field path into `element`.
  bool checkKeyPath(ast::Expr& key, const Type* element, OrderKeyInfo& out);

  // ---- expressions (check_exprs.cpp)
  const Type* check(ast::Expr& e, const Type* expected = nullptr);
  /// Converts `e` (already checked) to `to`, or reports why not. `context` completes
  /// "cannot use a value of type X as Y in …".
  bool convert(ast::Expr& e, const Type* to, const std::string& context);
  /// Gives an untyped literal expression its default type (u64, i64 or f64).
  const Type* finalize(ast::Expr& e);
  void materialize(ast::Expr& e, const Type* to);
  const Type* checkName(ast::NameExpr& e);
  const Type* checkStringLit(ast::StringLitExpr& e);
  /// A method of a str value; words() and split() only as the source of a for-in loop.
  const Type* checkStrMethod(ast::MethodCallExpr& e, bool asLoopSource);
  void checkInterpolations(ast::StringLiteral& literal, const std::string& what);
  const Type* checkUnary(ast::UnaryExpr& e, const Type* expected);
  const Type* checkBinary(ast::BinaryExpr& e, const Type* expected);
  const Type* checkCast(ast::CastExpr& e);
  const Type* checkField(ast::FieldExpr& e);
  const Type* checkIndex(ast::IndexExpr& e);
  const Type* checkMethod(ast::MethodCallExpr& e);
  const Type* checkCall(ast::CallExpr& e, const Type* expected);
  const Type* checkAggregate(ast::CallExpr& e);
  const Type* checkCppCall(ast::CallExpr& e);
  const Type* checkRecordInit(ast::RecordInitExpr& e);
  const Type* checkArray(ast::Expr& e, const Type* expected);
  bool argumentCount(ast::CallExpr& e, size_t min, size_t max);
  /// Unifies the operand types of a binary operator; null after reporting a mismatch.
  const Type* unify(ast::Expr& lhs, ast::Expr& rhs, const std::string& op, SourceLoc loc);
  std::optional<ConstValue> constant(const ast::Expr& e, std::string* whyNot = nullptr);

  // ---- pipelines (check_pipelines.cpp)
  const Type* checkPipeline(ast::Pipeline& p, const std::string& consumer);
  bool readableInOrder(const ast::Pipeline& p) const; // usable as a merge input
  const Type* checkSource(ast::Source& s, const std::string& consumer);
  const Type* checkPopBelow(ast::MethodCallExpr& m);
  /// Errors for q.top(), q.pop() and q.pop_below(…) written in the body of a loop over q.pop_below(…).
  void takenWhilePoppingBelow(const ast::ForInStmt& f, const Symbol& queue);
  const Type* checkStage(ast::Stage& s, const Type* input);
  /// `window 3`, `sample 0.1`, `enumerate`: by the rules of its STAGE row (ast/builtins.def).
  const Type* checkNamedStage(ast::NamedStage& s, const Type* input);
  /// The record `{ index: u64, value: T }` that enumerate puts out, one per T.
  const Type* indexedRecord(const Type* value, SourceLoc loc);
  void consume(Symbol& s, SourceLoc loc, const std::string& what);
  /// The function of a reduce, join or zip, with one parameter per type in `params`;
  /// returns the type it computes. `what` names it in messages ("reduce's function").
  const Type* checkLambda(ast::Lambda& fn, const std::vector<const Type*>& params, const std::string& what,
                          const std::vector<std::string>& paramNames = {});
  /// An expression that runs once per element (the body of a map, filter, generate or
  /// lambda), checked in the scope its caller opened for the element or the parameters;
  /// closes that scope.
  const Type* checkPerElement(ast::Expr& body);
  /// `t`, the type checkPerElement gave `body`, finalized; an error unless it is a value an
  /// element can be (`needs` says what was wanted: "map needs a value for each element").
  const Type* elementValue(ast::Expr& body, const Type* t, const std::string& needs);
  const Type* checkJoin(ast::JoinSource& j);
  /// Whether zip (or join) can pull the pipeline one element at a time.
  /// (withoutInsertedSort: as if the sort sema inserted at its end for a join were not there.)
  bool readableSideBySide(const ast::Pipeline& p, bool withoutInsertedSort = false) const;
  /// Whether the pipeline's join (its source) may put out its pairs in any order
  /// (ast::JoinSource::orderFree); if not, and a reduce reads it, why not (mergeOnly).
  bool orderFreeJoin(const ast::Pipeline& p, std::string& mergeOnly) const;
  bool pureFunction(const ast::Lambda& fn, const std::string& what);

  // ---- the order pipelines come out in (check_orders.cpp)
  /// Keys from the most significant; empty when the order is not known.
  using Ordering = std::vector<OrderKeyInfo>;
  static Ordering orderingOf(const OrderInfo* o);
  /// Whether elements in order `have` are also in order `need` (a prefix of it).
  static bool satisfies(const Ordering& have, const Ordering& need);
  /// The order that passes through a function whose parameters `vars` are read in the
  /// given orders: a result that is a parameter, or a record of its key fields.
  static Ordering throughFunction(const Ordering& in, const ast::Expr& body,
                                  const std::vector<std::pair<const Symbol*, Ordering>>& vars);
  Ordering sourceOrdering(const ast::Source& s) const;
  /// The order of the queue a `q.pop_below(…)` source takes from (its items come out in
  /// it), or null for any other source or a queue of no known order.
  static const OrderInfo* popBelowOrder(const ast::Source& s);
  Ordering stageOrdering(const ast::Stage& s, const Ordering& in);
  Ordering namedOrdering(const Symbol* s) const;
  void findChangedVectors();
  /// A join key or reduce key list as an order on `element` (every key a field path).
  const OrderInfo* keyListOrder(std::vector<OrderKeyInfo> keys, const Type* element, SourceLoc loc);
  /// Appends a sort by `order` to `p` unless p already comes out in that order.
  void sortIfNeeded(ast::Pipeline& p, const OrderInfo* order, const std::string& forWhat);
  /// What a `~` estimates: an element count (a file's, a join's, a while's rounds), the
  /// fraction of elements that pass (filter, unique, reduce: 0 to 1), or the elements put
  /// out per element taken (a for stage: any ratio).
  enum class EstimateOf { count, fraction, distinct, ratio };
  void checkEstimate(std::optional<ast::Estimate>& e, EstimateOf what);
  bool requireTextual(const Type* type, SourceLoc loc, const std::string& what);

  // ---- modules (modules.cpp)
  void loadModules();
  void loadModule(ast::UseDecl& use, const SourceFile* from, std::map<std::string, std::string>& aliases,
                  std::vector<ast::StmtPtr>& items);
  std::string stdlibDir() const;

  // ---- functions (functions.cpp)
  void declareFunction(ast::FnDecl& fn);
  /// Whether calls of `fn` are inlined where they stand (an expression body, value
  /// parameters and result, no aggregate of a stream); the others become statements
  /// before the calling one.
  bool inlinable(const ast::FnDecl& fn);
  /// The script function `e` calls, if it is such a call.
  ast::FnDecl* functionCalled(const ast::Expr& e);
  /// "unknown function 'f'", with the nearest builtin or script function.
  void unknownFunction(const ast::CallExpr& e);
  bool recursive(const ast::FnDecl& fn, SourceLoc call);
  const SourceFile* fileOf(const ast::FnDecl& fn) const;
  /// Checks a list of statements, expanding the function calls in each before it.
  void checkStatements(std::vector<ast::StmtPtr>& body, bool topLevel);
  /// Expands the first call in body[i] that needs statements; moves i past the inserted
  /// statements that are checked already. False if there is none.
  bool expandCall(std::vector<ast::StmtPtr>& body, size_t& i);
  bool expand(ast::FnDecl& fn, ast::CallExpr& call, ast::Stmt* statement, ast::ExprPtr& slot, ast::Pipeline* source,
              std::vector<ast::StmtPtr>& checked, std::vector<ast::StmtPtr>& expanded, bool& consumed);
  const Type* resolveParamType(ast::FnParam& p, const std::map<std::string, const Type*>& bound);
  /// Not recursive, and as many arguments as parameters (else reported).
  bool callable(const ast::FnDecl& fn, const ast::CallExpr& call);
  void startExpansion(const ast::FnDecl& fn, SourceLoc call, std::string& prefix, uint32_t& origin,
                      std::set<std::string>& locals);
  const Type* checkInlinedCall(ast::CallExpr& e, ast::FnDecl& fn);
  void noteChangedVectors(const ast::Stmt& s);

  // ---- statements and declarations (check_stmts.cpp)
  void checkItem(ast::Stmt& s);
  void checkStmt(ast::Stmt& s);
  void checkBlock(std::vector<ast::StmtPtr>& body, bool plainBlock = false);
  void checkParam(ast::ParamDecl& d);
  void checkSizeDecl(ast::SizeDecl& d);
  void checkLet(ast::LetStmt& s);
  void checkAssign(ast::AssignStmt& s);
  void checkRefill(ast::AssignStmt& s, ast::NameExpr& target, Symbol& vector);
  void checkPrint(ast::PrintStmt& s);
  /// `s.words()` or `s.split(sep)` of a str as a whole pipeline, else null.
  ast::MethodCallExpr* piecesSource(ast::Pipeline& p);
  /// read_csv and write_csv: a record of numbers, bools and strs.
  bool requireCsvRecord(const Type* type, SourceLoc loc, const std::string& what);
  void checkPath(ast::PathRef& path);
  void checkPathLiteral(const ast::StringLiteral& path);
  void checkArrayDecl(ast::ArrayDecl& d);
  /// `a[i]` of an array or an external vector `v[i]`: the container's symbol, or null when
  /// `object` names neither.
  Symbol* indexedContainer(ast::Expr& object);
  const Type* checkIfExpr(ast::IfExpr& e, const Type* expected);
  bool isAssignable(ast::Expr& target, std::string& why, SourceLoc& declLoc);

  ast::Program& program_;
  CheckedProgram& out_;
  DiagnosticEngine& diags_;
  const SourceFile* file_;
  SemaOptions options_;

  std::vector<std::map<std::string, Symbol*>> scopes_;
  std::vector<int> blockIds_; // one per open scope, unique in the script
  int nextBlockId_ = 0;
  /// A stream read again after a first read that may not have run (in a branch, a loop
  /// body) is an error: its first read writes it out for the later ones.
  void checkLaterReads();
  std::map<std::string, RecordInfo*> recordsByName_;
  std::map<const Type*, const Type*> indexedRecords_; // indexedRecord's, by value type
  std::map<RecordInfo*, ast::RecordDecl*> declOfRecord_;
  std::set<const RecordInfo*> layingOut_; // records whose fields are being resolved (cycles)
  std::map<std::string, const RecordInfo*> importedRecords_; // by C++ qualified name
  std::map<std::string, const OrderInfo*> builtinOrders_;    // "asc u32", "desc [u8; 10]"

  // Where checking is: loops (break/continue), the enclosing for stage (emit).
  int loopDepth_ = 0;
  struct StageContext {
    ast::ForStage* stage;
    const Type* emitted = nullptr;
    int loopDepthAtEntry = 0;
  };
  std::vector<StageContext> stages_;
  int lambdaDepth_ = 0;
  // Names of the script's top-level values (param, stream, …) with their kind, known
  // from the start so a use before the declaration gets a precise message.
  std::map<std::string, std::string> laterValues_;
  bool resolvingTypes_ = false; // laying out records: only constants may be used
  bool allowPath_ = false;      // resolving a param's type: `path` is one
  bool inLoopBody() const { return loopDepth_ > 0 || !stages_.empty(); }
  std::map<const ast::Pipeline*, Ordering> orderings_; // the order each checked pipeline comes out in
  std::set<std::string> changedVectors_;               // vectors pushed into somewhere

  // Modules: the script's names for them, and each loaded file's name (its id).
  std::map<std::string, std::string> scriptAliases_;
  std::map<std::string, std::string> moduleIds_; // canonical path → id
  std::set<std::string> takenModuleIds_;
  // Functions by name ("mis", "graph.mis"), what their bodies declare, calls so far.
  std::map<std::string, ast::FnDecl*> functions_;
  std::map<const ast::FnDecl*, bool> inlinableOf_; // inlinable()'s answers
  std::map<const ast::FnDecl*, std::set<std::string>> bodyNames_;
  std::map<const ast::FnDecl*, int> expansions_;
  std::vector<ast::TypeRefPtr> resolvedTypes_;  // parameter types resolved for a call
  std::vector<ast::ExprPtr> keptArguments_;     // constant arguments copied into bodies
};

} // namespace flow::sema
