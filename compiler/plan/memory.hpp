#pragma once
// Memory assignment and the I/O model (see docs/estimates.md for every formula).
#include "plan/plan.hpp"

namespace flow::plan {

/// How the runtime's sorter uses a budget (flow::algo::runs_creator / runs_merger).
struct SortModel {
  uint64_t blockBytes;
  uint64_t runBytes(uint64_t memory) const;         // bytes of one sorted run
  uint64_t inMemoryCapacity(uint64_t memory) const; // the most a sort keeps without any I/O (one run)
  uint64_t fanIn(uint64_t memory) const;            // runs one merge takes at once
  uint64_t mergeBytes(uint64_t runs) const;         // memory a merge of `runs` runs wants
};

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
