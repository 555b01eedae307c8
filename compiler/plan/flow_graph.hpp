#pragma once
// Builds the flow graph of a checked program into a Plan: nodes with element counts, in
// phases. Statements run in program order; a sort splits its pipeline into the phase
// that forms its runs and the phase that merges them.
#include "plan/plan.hpp"

#include <set>

namespace flow::plan {

class GraphBuilder {
public:
  GraphBuilder(const sema::CheckedProgram& program, Plan& plan, DiagnosticEngine& diags, const PlanOptions& options);
  /// Param values: defaults, or --set values; false after reporting a bad --set.
  bool evaluateParams();
  void build();
  /// Counts a read of an input file without `~ N` as kNominalInputElements instead of
  /// unknown (0): the graph of Node::startElements (makePlan builds it second, with the
  /// first plan's written files).
  void nominalUncountedInputs() { nominalInputs_ = true; }
  /// The files (and path params) the script writes, found by a build before this one:
  /// a stream that is an input file read as it is, by several statements, then reads the
  /// file again instead of copying it.
  void knownWrites(const Plan& earlier) {
    plan_.writtenFiles = earlier.writtenFiles;
    plan_.writtenPathParams = earlier.writtenPathParams;
    knownWrites_ = true;
  }

private:
  struct Flow {
    int node = 0;  // the node that puts the elements out
    int phase = 0; // the phase it runs in
  };

  std::optional<sema::ConstValue> parseSetValue(const sema::Symbol* param, const std::string& text);
  std::optional<sema::ConstValue> paramValue(const sema::Symbol* s) const;
  std::optional<double> count(const ast::Expr& e) const;
  double estimate(const ast::Estimate& e) const; // a `~` annotation's value

  /// What explain --calibrate measured for node `id` (nextId() for the node about to be
  /// added), or null: the planner's assumption stands.
  const Calibration::Measured* calibrated(int id) const;
  int nextId() const { return static_cast<int>(plan_.nodes.size()); }
  /// Node `id`'s count from its input's (`input` elements) and the measured fraction;
  /// without one, the assumption `assumed`. Marks the node calibrated.
  void calibrateCount(int id, double input);
  int add(Node::Kind kind, std::string name, SourceLoc loc, int phase, double elements, const sema::Type* type,
          std::vector<int> inputs, Payload payload);
  void unknown(int node, const std::string& why);
  void runInPhase(int node, int phase); // an input of a merge, join, zip or concat
  template <class Pipelines>
  std::pair<std::vector<int>, int> inputsInOnePhase(const Pipelines& pipelines, int phase, double multiplier);

  void topLevel(const ast::Stmt& s);
  void forIn(const ast::ForInStmt& f, int phase, double multiplier);
  class BodyWalker;
  void statements(const ast::Stmt& s, int phase, double executions);
  void nestedForIn(const ast::ForInStmt& f, int phase, double executions);
  void nestedWrite(const ast::WriteStmt& w, int phase, double executions);
  void vectorBuild(const ast::VectorDecl& d, const ast::AssignStmt* refill, int phase, double executions);
  void methodCall(const ast::MethodCallExpr& m, int phase, double executions);
  void aggregate(const ast::CallExpr& c, int phase, double executions);
  /// Plans the aggregates in a pipeline's arguments (ast::aggregatesBefore), which run before it.
  void aggregatesBefore(const ast::Pipeline& p, int phase, double executions);
  // Arrays and `v[i]` (random access). An array lives from its declaration to the end of
  // the block (or script) it is declared in: arrayDecl starts it, endScope ends the ones
  // a body declares, finishScopes turns the ranges into live phases.
  void arrayDecl(const ast::ArrayDecl& d, int phase);
  void endScope(const std::vector<ast::StmtPtr>& body);
  void finishScopes();
  void vectorIndex(const sema::Symbol& v, SourceLoc loc, int phase, double executions, bool write);
  struct ArrayScope {
    int node = 0;
    int first = 0, last = -1; // phases; last < 0 while open
  };
  std::map<const ast::ArrayDecl*, ArrayScope> arrays_;
  std::map<std::pair<const sema::Symbol*, int>, int> indexNode_; // (vector, phase) -> VectorIndex
  std::map<int, int> indexPhase_; // top-level statement -> the phase of its v[i] outside loops
  const ast::Stmt* item_ = nullptr; // the top-level statement being planned
  /// The pipeline's source and its first `stages` stages (all of them by default).
  Flow pipeline(const ast::Pipeline& p, int phase, double multiplier, size_t stages = SIZE_MAX);
  /// Whether join `j`, whose right input is planned as node `right` (`multiplier` runs)
  /// and one of whose inputs needs a sort for a merge join, is a hash join; `why` says why
  /// it is or is not, where it could be.
  bool hashJoin(const ast::JoinSource& j, const Node& right, double multiplier, std::string& why) const;
  Flow source(const ast::Source& s, int phase, double multiplier);
  Flow stage(const ast::Stage& s, Flow in);
  Flow named(const sema::Symbol& s, int phase, double multiplier, SourceLoc useLoc);

  void scaling(); // each node's Scaling, and the order to evaluate them in
  void labelPhases(); // each phase named by its nodes and where its statement is
  void beginPhase(const std::string& label, SourceLoc loc);
  void endPhase();
  int ownPhase(const std::string& label, SourceLoc loc);
  int callPhase(const std::string& call, SourceLoc loc);
  static std::string at(SourceLoc loc);

  const sema::CheckedProgram& program_;
  Plan& plan_;
  DiagnosticEngine& diags_;
  const PlanOptions& options_;
  /// An input file read without `~ N` as it is when flowc runs (PlanOptions::inputFilesNow).
  struct InputNow {
    bool known = false; // a regular file of whole elements is there
    uint64_t elements = 0, bytes = 0;
  };
  InputNow inputNow(const ast::ReadSource& read, const sema::Type& element) const;

  std::map<const sema::Symbol*, sema::ConstValue> values_;
  struct Built {
    Flow flow;
    Owner owner; // the statement or call whose pipeline ran it first
  };
  std::map<const sema::Symbol*, Built> builtStream_;
  std::map<const sema::Symbol*, int> materialized_;
  std::set<const sema::Symbol*> writeFirst_; // streams the current statement writes out first
  std::map<const sema::Symbol*, std::pair<double, bool>> vectorSize_; // elements, not counted
  std::map<const sema::Symbol*, int> queueOf_;
  std::map<std::pair<const sema::Symbol*, int>, int> pushNode_;
  // The loop and for-stage nodes whose bodies the walk is in, innermost last, and for a
  // queue or vector push node the innermost loop around its first push: it runs once per
  // element of that loop, so it scales with it (scaling()).
  std::vector<int> loopNodes_;
  std::map<int, int> pushLoop_;

  bool nominalInputs_ = false, knownWrites_ = false;
  std::vector<std::pair<const ast::Stmt*, int>> itemFirstPhase_; // each top-level statement's first phase
  bool readsUnchangedFile(const ast::Pipeline& p) const;
  int statement_ = 0;
  Owner owner_;
  // Inside a loop body: the pipelines made now run once per element of that loop.
  bool perElement_ = false;
  int base_ = 0, maxPhase_ = 0, nextPhase_ = 1;
  // The phase callPhase made last and the top-level statement it was in (-1: none).
  int callPhase_ = -1, callPhaseStatement_ = -1;
  std::vector<const ast::WhileStmt*> loops_; // the top-level while loops the walk is in
  std::string label_;
  SourceLoc labelLoc_;
};

} // namespace flow::plan
