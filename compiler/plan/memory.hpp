#pragma once
// Memory assignment and the I/O model (see docs/estimates.md for every formula).
#include "plan/plan.hpp"

#include "flow/plan/sort_model.hpp"

namespace flow::plan {

/// How the runtime's sorter uses a budget: the model generated programs use too.
using SortModel = flow::plan::sort_model;

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
  void reportTooSmall(int phase, const std::vector<int>& ids, uint64_t needed);

  Plan& plan_;
  DiagnosticEngine& diags_;
  const SourceFile* file_;
  SortModel sort_;
};

} // namespace flow::plan
