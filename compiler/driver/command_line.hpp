#pragma once
// flowc's command line: one table of options (llvm::cl, one subcommand per command) that
// parses argv into the options of the command to run and prints the help of each command.
#include "driver/check_command.hpp"
#include "driver/emit_command.hpp"
#include "driver/explain_command.hpp"
#include "driver/fmt_command.hpp"
#include "lsp/analysis.hpp"

#include <optional>
#include <string>
#include <vector>

namespace flow::driver {

/// What the command line asks for: the command and its options.
struct Invocation {
  enum Command { Check, Explain, Emit, Build, Run, Fmt, Lsp, Cache } command = Check;
  CheckOptions check;     // check
  ExplainOptions explain; // explain
  BuildOptions build;     // emit, build and run
  FmtOptions fmt;         // fmt
  lsp::AnalysisOptions lsp; // lsp
  std::vector<std::string> cacheWords; // cache: nothing or `clean`
};

/// Parses argv into `out`. Returns nullopt when `out.command` is to run; otherwise flowc's
/// exit status, after printing what was asked (--help, --version: 0) or a one-line error
/// with a hint to run --help (2).
std::optional<int> parseCommandLine(int argc, char** argv, Invocation& out);

} // namespace flow::driver
