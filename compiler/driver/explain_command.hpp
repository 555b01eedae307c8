#pragma once
// `flowc explain`: the plan of a script — phases, memory, element counts and I/O volume
// of every node, pipelined and fully materialized — before anything runs.
#include "driver/emit_command.hpp"
#include "plan/plan.hpp"

#include <string>
#include <vector>

namespace flow::driver {

struct ExplainOptions {
  enum Format { Text, Json, Dot } format = Text;
  plan::PlanOptions plan;
  std::vector<std::string> includeDirs;
  uint64_t strCapacity = 254; // --max-str
  bool color = false;
  std::string file;
  /// --calibrate: build the program with `build` (the compiler options of run), run it
  /// at a small scale and plan with what it measured.
  bool calibrate = false;
  BuildOptions build;
};

int runExplain(const ExplainOptions& options);

} // namespace flow::driver
