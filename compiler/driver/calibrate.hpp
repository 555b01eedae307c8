#pragma once
// `flowc explain --calibrate`: runs the script's program at a small scale of its count
// params and turns what its nodes counted (--stats=json "nodes", "queues") into the
// fractions the planner assumes otherwise: what a filter, unique, reduce, for stage or
// join passes, which pushes run, and how many items a queue holds at once.
#include "driver/explain_command.hpp"
#include "plan/plan.hpp"

#include <optional>

namespace flow::driver {

/// The calibration for makePlan (PlanOptions::calibration), measured by a run at a
/// small scale of the params of `full` (the static plan at the params asked for); or
/// nullopt after reporting why not (to `diags` or standard error).
std::optional<plan::Calibration> calibrate(const ExplainOptions& options, const sema::CheckedProgram& program,
                                           const plan::Plan& full, DiagnosticEngine& diags);

} // namespace flow::driver
