// flowc: the Flow compiler's command line (driver/command_line.cpp) and one function per
// command.
#include "driver/check_command.hpp"
#include "driver/cache.hpp"
#include "driver/command_line.hpp"
#include "driver/emit_command.hpp"
#include "driver/environment.hpp"
#include "driver/explain_command.hpp"
#include "driver/fmt_command.hpp"
#include "lsp/server.hpp"
#include "driver/frontend.hpp"

#include <exception>
#include <iostream>

namespace {

int run(int argc, char** argv) {
  flow::driver::Invocation invocation;
  if (std::optional<int> status = flow::driver::parseCommandLine(argc, argv, invocation)) return *status;
  switch (invocation.command) {
  case flow::driver::Invocation::Check: return flow::driver::runCheck(invocation.check);
  case flow::driver::Invocation::Explain: return flow::driver::runExplain(invocation.explain);
  case flow::driver::Invocation::Emit: return flow::driver::runEmit(invocation.build);
  case flow::driver::Invocation::Build: return flow::driver::runBuild(invocation.build);
  case flow::driver::Invocation::Run: return flow::driver::runRun(invocation.build);
  case flow::driver::Invocation::Fmt: return flow::driver::runFmt(invocation.fmt);
  case flow::driver::Invocation::Cache: return flow::driver::runCache(invocation.cacheWords, invocation.build);
  case flow::driver::Invocation::Lsp: return flow::lsp::serve(std::cin, std::cout, invocation.lsp);
  }
  return 3;
}

} // namespace

int main(int argc, char** argv) {
  // Everything on a thread with a large stack: see flow::driver::runOnLargeStack.
  return flow::driver::runOnLargeStack([&]() -> int {
    try {
      return run(argc, argv);
    } catch (const flow::driver::UsageError& e) {
      std::cerr << "flowc: error: " << e.what() << "\n";
      return 2;
    } catch (const flow::driver::EnvironmentError& e) {
      std::cerr << "flowc: error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "flowc: internal error: " << e.what() << "\nplease report this bug with the script that caused it\n";
    } catch (...) {
      std::cerr << "flowc: internal error (unknown exception)\nplease report this bug with the script that caused it\n";
    }
    return 3;
  });
}
