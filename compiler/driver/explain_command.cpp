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
  frontEnd.strCapacity = options.strCapacity;
  if (!compileScript(options.file, frontEnd, diags, script)) return 1;
  checkSetParams(*script.checked, options.plan.setParams);
  // Input files there now are counted as the program will count them when it starts;
  // a calibrated plan starts from the program's own plan instead (the files' counts are
  // measured by its run).
  plan::PlanOptions planOptions = options.plan;
  planOptions.inputFilesNow = !options.calibrate;
  std::optional<plan::Plan> plan = plan::makePlan(*script.checked, planOptions, diags);
  diags.flush();
  if (!plan) return 1;
  if (options.calibrate) {
    std::optional<plan::Plan> calibrated = calibratedPlan(options.build, *script.checked, *plan, diags);
    if (!calibrated) return 1;
    plan = std::move(calibrated);
  }
  switch (options.format) {
  case ExplainOptions::Text: plan::printText(*plan, std::cout); break;
  case ExplainOptions::Json: plan::printJson(*plan, std::cout); break;
  case ExplainOptions::Dot: plan::printDot(*plan, std::cout); break;
  }
  return 0;
}

} // namespace flow::driver
