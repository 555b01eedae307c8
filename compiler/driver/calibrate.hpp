#pragma once
// `--calibrate` (flowc explain, emit, build, run): runs the script's program at a small scale of its count
// params and turns what its nodes counted (--stats=json "nodes", "queues") into the
// fractions the planner assumes otherwise: what a filter, unique, reduce, for stage or
// join passes, which pushes run, and how many items a queue holds at once.
#include "driver/emit_command.hpp"
#include "plan/plan.hpp"

#include <optional>

namespace flow::driver {

/// `full` (the static plan at the params asked for) planned again with what a run of
/// its program (built from `program`, as `flowc run` builds it) at a small scale of its
/// count params measured, in place of the planner's assumptions; the memory split stays
/// `full`'s, which is what that program makes. nullopt after reporting why not (to
/// `diags` or standard error). The plan's `calibration` says which run it was.
std::optional<plan::Plan> calibratedPlan(const BuildOptions& program, const sema::CheckedProgram& checked,
                                         const plan::Plan& full, DiagnosticEngine& diags);

} // namespace flow::driver
