#include "driver/explain_command.hpp"

#include "driver/calibrate.hpp"
#include "driver/frontend.hpp"

#include <iostream>

namespace flow::driver {

int runExplain(const ExplainOptions& options) {
  CompiledScript script;
  DiagnosticEngine diags(std::cerr, options.color);
  FrontEndOptions frontEnd;
  frontEnd.includeDirs = options.includeDirs;
  if (!compileScript(options.file, frontEnd, diags, script)) return 1;
  std::optional<plan::Plan> plan = plan::makePlan(*script.checked, options.plan, diags);
  diags.flush();
  if (!plan) return 1;
  if (options.calibrate) {
    // Planned again with what a small run measured; the memory split stays the static
    // plan's, which is what the program makes.
    std::optional<plan::Calibration> calibration = calibrate(options, *script.checked, *plan, diags);
    if (!calibration) return 1;
    plan::PlanOptions calibrated = options.plan;
    calibrated.calibration = &*calibration;
    calibrated.programPlan = &*plan;
    std::optional<plan::Plan> measured = plan::makePlan(*script.checked, calibrated, diags);
    diags.flush();
    if (!measured) return 1;
    plan = std::move(measured);
  }
  switch (options.format) {
  case ExplainOptions::Text: plan::printText(*plan, std::cout); break;
  case ExplainOptions::Json: plan::printJson(*plan, std::cout); break;
  case ExplainOptions::Dot: plan::printDot(*plan, std::cout); break;
  }
  return 0;
}

} // namespace flow::driver
