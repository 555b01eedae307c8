#pragma once
// Memory assignment and the I/O model (see docs/estimates.md for every formula). The
// split itself is the runtime's flow::plan::memory_planner, which generated programs run
// again with their actual params.
#include "plan/plan.hpp"

#include "flow/plan/memory_plan.hpp"

namespace flow::plan {

class MemoryPlanner {
public:
  MemoryPlanner(Plan& plan, DiagnosticEngine& diags, const SourceFile* file);
  /// Splits the budget; false after reporting a phase that cannot fit.
  bool assign();
  /// explain --calibrate: takes the memory split (and a reduce's choice of a hash table)
  /// of `program`, the static plan of the same script and params, which is what the
  /// program, built without calibration, makes at start. Before computeIo.
  void adopt(const Plan& program);
  /// Prices every node (flow::plan::memory_planner::cost) and adds explain's notes, the
  /// temporary disk's phases and the cost as if every stream were materialized.
  void computeIo();
  void totals();
  /// What each node of `plan` asks of the budget and how its I/O is priced, in plan
  /// order: the rows of the memory plan, here and in generated programs.
  static std::vector<memory_node> demands(const Plan& plan);

private:
  flow::plan::memory_planner planner();
  /// False after reporting a count past flow::plan::max_elements (2^63).
  bool countsFit();
  void reportTooSmall(int phase, uint64_t needed);
  /// " (the least budget that holds this plan is ...)": flow::plan::least_budget for the
  /// script's block rule, as a program reports it at start.
  std::string leastBudget() const;

  Plan& plan_;
  DiagnosticEngine& diags_;
  const SourceFile* file_;
  std::vector<memory_node> nodes_; // plan_.nodes' demands, in the same order
  const Plan* program_ = nullptr;  // adopt()'s plan
};

} // namespace flow::plan
