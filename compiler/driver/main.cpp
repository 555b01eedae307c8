// flowc: the Flow compiler's command line. Dispatches to one function per command.
#include "driver/check_command.hpp"
#include "driver/emit_command.hpp"
#include "driver/explain_command.hpp"
#include "driver/frontend.hpp"
#include "driver/version.hpp"

#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <unistd.h>

namespace {

const char* kUsage = R"(flowc - compile .flow scripts for data far larger than memory

usage: flowc <command> [options] FILE...
       flowc --version | --help

commands:
  check FILE...        parse and check scripts (syntax, names, types, C++ imports);
                       print diagnostics as file:line:col: error: message, with the
                       line and a caret

options of check:
  --dump-ast           print the syntax tree of each script (with line:column)
  --dump-types         print every record's layout (size, alignment, field offsets),
                       every order, and every declaration and stream with its type
  --parse-only         check the syntax only, not names and types
  --summary            print a one-line summary of each clean script
  --color=WHEN         color diagnostics: auto (default, when stderr is a terminal),
                       always or never

  explain FILE         the plan: phases, memory of every sort and queue, elements and
                       I/O volume of every node and in total, beside the volume if
                       every stream were materialized (docs/estimates.md)

options of explain:
  --set NAME=VALUE     plan with this value of param NAME (repeatable; e.g. edges=4e9)
  --memory SIZE        plan for this memory budget instead of the script's (e.g. 256MiB)
  --block SIZE         plan with this block size instead of the script's or the default
  --format FORMAT      text (default), json (for tools) or dot (a Graphviz drawing with
                       the phases as clusters)

  emit FILE [-o OUT]   the generated C++ (formatted, with the plan as comments)
  build FILE [-o EXE]  emit, then compile with the host C++ compiler against the runtime
                       (--cxx COMPILER, -O LEVEL; default $CXX or c++, -O2)
  run FILE [-- ARGS]   build into a cache keyed by the content of the script and the
                       runtime, then run it with ARGS (the executable's flags: --help)

options of explain, emit, build and run:
  --set NAME=VALUE, --memory SIZE, --block SIZE as above (emit, build and run size the
                       program's sorters and queues from that plan)
  -I DIR               look for imported C++ headers in DIR too (repeatable)

exit status: 0 success, 1 errors in a script, 2 bad command line, 3 internal error;
flowc run exits with the program's status.
)";

int usageError(const std::string& message) {
  std::cerr << "flowc: " << message << "\n(run 'flowc --help' for usage)\n";
  return 2;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

int checkCommand(int argc, char** argv) {
  flow::driver::CheckOptions options;
  options.color = isatty(STDERR_FILENO);
  bool onlyFiles = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (onlyFiles || arg == "-" || !startsWith(arg, "-")) options.files.push_back(arg);
    else if (arg == "--") onlyFiles = true;
    else if (arg == "--dump-ast") options.dumpAst = true;
    else if (arg == "--summary") options.summary = true;
    else if (arg == "--dump-types") options.dumpTypes = true;
    else if (arg == "--parse-only") options.parseOnly = true;
    else if (arg == "-I" && i + 1 < argc) options.includeDirs.push_back(argv[++i]);
    else if (startsWith(arg, "-I") && arg.size() > 2) options.includeDirs.push_back(arg.substr(2));
    else if (arg == "--color=always") options.color = true;
    else if (arg == "--color=never") options.color = false;
    else if (arg == "--color=auto") options.color = isatty(STDERR_FILENO);
    else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else return usageError("unknown option '" + arg + "' for 'check'");
  }
  if (options.files.empty()) return usageError("'check' needs at least one FILE");
  return flow::driver::runCheck(options);
}

/// The value of `--name=VALUE` or `--name VALUE`; advances `i` over a separate value.
bool optionValue(int argc, char** argv, int& i, const std::string& name, std::string& value) {
  std::string arg = argv[i];
  if (arg == name && i + 1 < argc) {
    value = argv[++i];
    return true;
  }
  if (startsWith(arg, (name + "=").c_str())) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  return false;
}

/// --set, --memory and --block, shared by explain, emit, build and run. Returns 1 if
/// argv[i] was one of them, 0 if not, and -1 after a usage error was printed.
int planOption(int argc, char** argv, int& i, flow::plan::PlanOptions& plan, int& status) {
  std::string value, error;
  if (optionValue(argc, argv, i, "--set", value)) {
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      status = usageError("--set takes NAME=VALUE, not '" + value + "'");
      return -1;
    }
    plan.setParams[value.substr(0, eq)] = value.substr(eq + 1);
    return 1;
  }
  if (optionValue(argc, argv, i, "--memory", value)) {
    auto bytes = flow::driver::parseSizeArgument(value, error);
    if (!bytes) {
      status = usageError("--memory: " + error);
      return -1;
    }
    plan.memoryBytes = *bytes;
    return 1;
  }
  if (optionValue(argc, argv, i, "--block", value)) {
    auto bytes = flow::driver::parseSizeArgument(value, error);
    if (!bytes || *bytes < 4096 || (*bytes & (*bytes - 1)) != 0) {
      status = usageError("--block: a block size is a power of two of at least 4 KiB");
      return -1;
    }
    plan.blockBytes = *bytes;
    return 1;
  }
  return 0;
}

int explainCommand(int argc, char** argv) {
  flow::driver::ExplainOptions options;
  options.color = isatty(STDERR_FILENO);
  std::string value;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    int status = 0;
    if (int planned = planOption(argc, argv, i, options.plan, status)) {
      if (planned < 0) return status;
    } else if (optionValue(argc, argv, i, "--format", value)) {
      if (value == "text") options.format = flow::driver::ExplainOptions::Text;
      else if (value == "json") options.format = flow::driver::ExplainOptions::Json;
      else if (value == "dot") options.format = flow::driver::ExplainOptions::Dot;
      else return usageError("--format is text, json or dot, not '" + value + "'");
    } else if (arg == "-I" && i + 1 < argc) {
      options.includeDirs.push_back(argv[++i]);
    } else if (startsWith(arg, "-I") && arg.size() > 2) {
      options.includeDirs.push_back(arg.substr(2));
    } else if (arg == "--color=always" || arg == "--color=never") {
      options.color = arg == "--color=always";
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (startsWith(arg, "-")) {
      return usageError("unknown option '" + arg + "' for 'explain'");
    } else if (!options.file.empty()) {
      return usageError("'explain' takes one FILE");
    } else {
      options.file = arg;
    }
  }
  if (options.file.empty()) return usageError("'explain' needs a FILE");
  return flow::driver::runExplain(options);
}

int buildCommand(const std::string& command, int argc, char** argv) {
  flow::driver::BuildOptions options;
  options.color = isatty(STDERR_FILENO);
  std::string value;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (command == "run" && arg == "--") {
      for (++i; i < argc; ++i) options.runArgs.push_back(argv[i]);
      break;
    }
    int status = 0;
    if (int planned = planOption(argc, argv, i, options.plan, status)) {
      if (planned < 0) return status;
    } else if (optionValue(argc, argv, i, "--cxx", value)) {
      options.cxx = value;
    } else if (arg == "-o" && i + 1 < argc) {
      options.output = argv[++i];
    } else if (startsWith(arg, "-O") && arg.size() == 3) {
      options.optimization = arg.substr(2);
    } else if (arg == "-I" && i + 1 < argc) {
      options.includeDirs.push_back(argv[++i]);
    } else if (startsWith(arg, "-I") && arg.size() > 2) {
      options.includeDirs.push_back(arg.substr(2));
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (startsWith(arg, "-") && arg != "-") {
      return usageError("unknown option '" + arg + "' for '" + command + "'");
    } else if (!options.file.empty()) {
      return usageError("'" + command + "' takes one FILE" + (command == "run" ? " (program flags go after --)" : ""));
    } else {
      options.file = arg;
    }
  }
  if (options.file.empty()) return usageError("'" + command + "' needs a FILE");
  if (command == "emit") return flow::driver::runEmit(options);
  if (command == "build") return flow::driver::runBuild(options);
  return flow::driver::runRun(options);
}

int run(int argc, char** argv) {
  if (argc < 2) return usageError("no command given");
  std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::cout << flow::driver::versionText();
    return 0;
  }
  if (command == "check") return checkCommand(argc, argv);
  if (command == "explain") return explainCommand(argc, argv);
  if (command == "emit" || command == "build" || command == "run") return buildCommand(command, argc, argv);
  return usageError("unknown command '" + command + "'");
}

} // namespace

int main(int argc, char** argv) {
  // Everything on a thread with a large stack: see flow::driver::runOnLargeStack.
  return flow::driver::runOnLargeStack([&]() -> int {
    try {
      return run(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "flowc: internal error: " << e.what() << "\nplease report this bug with the script that caused it\n";
    } catch (...) {
      std::cerr << "flowc: internal error (unknown exception)\nplease report this bug with the script that caused it\n";
    }
    return 3;
  });
}
