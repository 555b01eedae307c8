#pragma once
// Memory assignment and the I/O model (see docs/estimates.md for every formula).
#include "plan/plan.hpp"

#include "flow/plan/sort_model.hpp"

namespace flow::plan {

class MemoryPlanner {
public:
  MemoryPlanner(Plan& plan, DiagnosticEngine& diags, const SourceFile* file);
  /// Splits the budget; false after reporting a phase that cannot fit.
  bool assign();
  void computeIo();
  void totals();

private:
  uint64_t minimum(const Node& n) const;
  uint64_t queueMinimum(const Node& n) const;
  uint64_t queueWant(const Node& n) const;
  /// How the runtime sorts this sort node's elements (the shared model's input).
  sort_setup sortSetup(const Node& n) const;
  /// The sort's cost with its planned budgets (`n` either half of the sort).
  sort_cost sortCost(const Node& n) const;
  void reportTooSmall(int phase, const std::vector<int>& ids, uint64_t needed);

  Plan& plan_;
  DiagnosticEngine& diags_;
  const SourceFile* file_;
  unsigned threads_; // the machine's, as programs default to
};

} // namespace flow::plan
