// flowc's command line, declared once in `Table`: the commands, then every option with
// the commands that take it, its syntax and its help. llvm::cl parses argv with it (one
// cl::SubCommand per command), --help is printed from it, and what it parsed is copied
// into the options of the command to run.
#include "driver/command_line.hpp"

#include "driver/frontend.hpp"
#include "driver/version.hpp"
#include "flow/defaults.hpp"
#include "flow/edit_distance.hpp"

#include <llvm/Support/Allocator.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sched.h>
#include <unistd.h>

namespace cl = llvm::cl;
using llvm::StringRef;

namespace flow::driver {
namespace {

const char* kTitle = "flowc - compile .flow scripts for data far larger than memory\n";

const char* kExitStatus = "exit status: 0 success, 1 errors in a script or the environment (no folder for\n"
                          "temporary files, a C++ compiler that is missing or rejects $CXXFLAGS), 2 bad command\n"
                          "line, 3 internal error; flowc run exits with the program's status.\n";

const char* kCompilerNotes = "environment:\n"
                             "  CXX                  the C++ compiler when --cxx is not given (else c++), split\n"
                             "                       as a shell would (CXX=\"ccache g++\")\n"
                             "  CXXFLAGS             more flags for the C++ compiler, split as a shell would\n"
                             "                       (quotes, backslashes); they come before those of --cxxflag\n"
                             "  FLOW_BUILD_JOBS      compilers at once when -j is not given (else the CPUs\n"
                             "                       flowc may use)\n";

const char* kRunNotes = "  FLOW_CACHE_DIR       where run keeps the programs it built, and build and run the\n"
                        "                       runtime classes compiled for a script's types (else\n"
                        "                       $XDG_CACHE_HOME/flow, ~/.cache/flow or /tmp/flow-cache-UID;\n"
                        "                       a folder of yours alone, mode 0700; flowc cache)\n";

const char* kCacheNotes = "environment:\n"
                          "  FLOW_CACHE_DIR       the cache folder (else $XDG_CACHE_HOME/flow, ~/.cache/flow or\n"
                          "                       /tmp/flow-cache-UID; a folder of yours alone, mode 0700)\n"
                          "  FLOW_CACHE_SIZE      the most bytes of programs and compiled classes kept (else\n"
                          "                       2GiB); after a build the least recently used go first\n";

const char* kFmtNotes = "the layout: 4 columns for each block or bracket open at a line's start, 4 more for\n"
                        "a statement's continuation lines and 2 for its '| stage' lines; one space or none\n"
                        "between tokens by fixed rules; trailing comments of consecutive lines in one\n"
                        "column; at most one blank line. Lines are never joined or split, and a script\n"
                        "with syntax errors is left as it is (docs/editors.md). --check exits with 1\n"
                        "when a file is not formatted.\n";

enum class Color { Auto, Always, Never };

/// A command: its subcommand of the parser, what its usage line shows after [options],
/// and what its help says after the options.
struct Command {
  cl::SubCommand sub;
  Invocation::Command kind;
  const char* operands;
  std::string notes;
  Command(const char* name, Invocation::Command kind, const char* operands, const char* description,
          std::string notes = "")
      : sub(name, description), kind(kind), operands(operands), notes(std::move(notes)) {}
};

/// The modifier that registers an option to several commands (cl::sub takes one). Every
/// option may be given more than once: the last value wins, a list keeps them all.
struct Commands {
  std::vector<cl::SubCommand*> subs;
  template <class Opt> void apply(Opt& option) const {
    for (cl::SubCommand* sub : subs) option.addSubCommand(*sub);
    option.setNumOccurrencesFlag(cl::ZeroOrMore);
  }
};

/// A second name of an option (-h for --help), hidden: the help shows it beside the
/// option's name.
struct ShortName : cl::alias {
  const cl::Option& of;
  ShortName(const char* name, cl::Option& of) : cl::alias(StringRef(name), cl::aliasopt(of), cl::Hidden), of(of) {}
};

/// One of the cl::values of an enum option; a wrong value is named beside the right ones.
template <class T> struct ChoiceParser : cl::parser<T> {
  using cl::parser<T>::parser;
  bool parse(cl::Option& option, StringRef, StringRef arg, T& value) {
    std::string names;
    for (unsigned i = 0, n = this->getNumOptions(); i < n; ++i) {
      if (this->getOption(i) == arg) {
        value = this->Values[i].V.getValue();
        return false;
      }
      names += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + this->getOption(i).str();
    }
    return option.error("'" + arg + "' is not " + names);
  }
};

/// A size (256MiB, 1.5GiB, 1048576); a block size is also a power of two of at least 4 KiB.
template <bool Block> struct SizeParser : cl::parser<unsigned long long> {
  using cl::parser<unsigned long long>::parser;
  bool parse(cl::Option& option, StringRef, StringRef arg, unsigned long long& value) {
    std::string error;
    // --memory 50%: a share of this machine's physical memory, as programs take it.
    const bool share = !Block && arg.endswith("%");
    std::optional<uint64_t> bytes = share ? flow::memory_share(arg) : parseSizeArgument(arg.str(), error);
    if (!bytes && share) error = "'" + arg.str() + "' is not a share of physical memory (write e.g. 50%)";
    if (!bytes) return option.error(error);
    if (Block && (*bytes < 4096 || (*bytes & (*bytes - 1)) != 0))
      return option.error("a block size is a power of two of at least 4 KiB, not '" + arg + "'");
    value = *bytes;
    return false;
  }
};

/// NAME=VALUE (--set).
struct AssignmentParser : cl::parser<std::string> {
  using cl::parser<std::string>::parser;
  bool parse(cl::Option& option, StringRef, StringRef arg, std::string& value) {
    size_t eq = arg.find('=');
    if (eq == StringRef::npos || eq == 0) return option.error("takes NAME=VALUE, not '" + arg + "'");
    value = arg.str();
    return false;
  }
};

/// An optimization level of the C++ compiler (-O).
struct LevelParser : cl::parser<std::string> {
  using cl::parser<std::string>::parser;
  bool parse(cl::Option& option, StringRef, StringRef arg, std::string& value) {
    for (const char* level : {"0", "1", "2", "3", "s", "z", "g", "fast"})
      if (arg == level) {
        value = arg.str();
        return false;
      }
    return option.error("'" + arg + "' is not a level: 0, 1, 2, 3, s, z, g or fast");
  }
};

/// Every command and option of flowc. The help lists options in the order they are
/// declared here (their addresses), so keep related options together. Hidden options are
/// ShortNames.
struct Table {
  Command check{"check", Invocation::Check, "FILE...",
                "parse and check scripts (syntax, names, types, C++ imports);\n"
                "print diagnostics as file:line:col: error: message, with the\n"
                "line and a caret"};
  Command explain{"explain", Invocation::Explain, "FILE",
                  "the plan: phases, memory of every sort and queue, elements and\n"
                  "I/O volume of every node and in total, beside the volume if\n"
                  "every stream were materialized (docs/estimates.md)"};
  Command emit{"emit", Invocation::Emit, "FILE", "the generated C++ (formatted, with the plan as comments)"};
  Command build{"build", Invocation::Build, "FILE",
                "emit, then compile with the host C++ compiler against the runtime", kCompilerNotes};
  Command run{"run", Invocation::Run, "FILE [-- ARGS]",
              "build into a cache keyed by the content of the script, the\n"
              "runtime and the compiler command (again when an included header\n"
              "changed), then run it with ARGS (the program's flags: flowc run\n"
              "FILE -- --help)",
              std::string(kCompilerNotes) + kRunNotes};
  Command fmt{"fmt", Invocation::Fmt, "FILE... | -",
              "rewrite scripts in Flow's one layout, in place (-: standard input\n"
              "to standard output), keeping every comment and line break",
              kFmtNotes};
  Command lsp{"lsp", Invocation::Lsp, "",
              "a Language Server Protocol server on standard input and output for\n"
              "editors: diagnostics as you type, hover (types, the plan of a line),\n"
              "go to definition, completion, formatting (docs/editors.md)"};
  Command cache{"cache", Invocation::Cache, "[clean | precompile]",
                "what flowc's cache holds (the programs flowc run built, the\n"
                "runtime classes compiled for scripts' types, the precompiled\n"
                "runtime) and its size limit; clean: remove them all;\n"
                "precompile: make the precompiled runtime for flowc build's\n"
                "defaults ($CXX, $CXXFLAGS, -O2) before a first build needs it",
                kCacheNotes};
  const std::array<Command*, 8> commands{&check, &explain, &emit, &build, &run, &fmt, &lsp, &cache};

  // The commands that compile a script (all but fmt, which only lays out its text).
  const Commands everyCommand{{&check.sub, &explain.sub, &emit.sub, &build.sub, &run.sub, &lsp.sub}};
  const Commands everyCommandWithFmt{{&check.sub, &explain.sub, &emit.sub, &build.sub, &run.sub, &fmt.sub, &lsp.sub}};
  // The commands given scripts on the command line (lsp gets them from the editor).
  const Commands withFiles{{&check.sub, &explain.sub, &emit.sub, &build.sub, &run.sub, &fmt.sub}};
  const Commands everyCommandAndNone{{&check.sub, &explain.sub, &emit.sub, &build.sub, &run.sub, &fmt.sub, &lsp.sub,
                                      &cache.sub,
                                      &*cl::TopLevelSubCommand}};
  const Commands planning{{&explain.sub, &emit.sub, &build.sub, &run.sub}};
  // explain builds and runs the program for --calibrate
  const Commands compiling{{&explain.sub, &build.sub, &run.sub}};

  // The scripts: every argument that is not an option, and all after `--` (but `run`
  // gives what follows `--` to the program).
  cl::list<std::string> files{cl::Positional, cl::value_desc("FILE"), withFiles};

  // cache
  cl::list<std::string> cacheWords{cl::Positional, cl::value_desc("clean|precompile"), Commands{{&cache.sub}}};

  // check
  cl::opt<bool> dumpAst{"dump-ast", cl::desc("print the syntax tree of each script (with line:column)"),
                        Commands{{&check.sub}}};
  cl::opt<bool> dumpTypes{"dump-types",
                          cl::desc("print every record's layout (size, alignment, field offsets),\n"
                                   "every order, and every declaration and stream with its type"),
                          Commands{{&check.sub}}};
  cl::opt<bool> parseOnly{"parse-only", cl::desc("check the syntax only, not names and types"),
                          Commands{{&check.sub}}};
  cl::opt<bool> summary{"summary", cl::desc("print a one-line summary of each clean script"),
                        Commands{{&check.sub}}};
  cl::opt<CheckOptions::Format, false, ChoiceParser<CheckOptions::Format>> diagnosticsFormat{
      "diagnostics-format", cl::value_desc("FORMAT"),
      cl::desc("text (default: file:line:col: error: message, the line and a caret\n"
               "on stderr), json (one array on stdout for tools: each error or\n"
               "warning with file, line, column, severity, message and notes) or\n"
               "sarif (one SARIF 2.1.0 log on stdout, as code-scanning tools read)"),
      cl::values(clEnumValN(CheckOptions::Format::Text, "text", ""), clEnumValN(CheckOptions::Format::Json, "json", ""),
                 clEnumValN(CheckOptions::Format::Sarif, "sarif", "")),
      cl::init(CheckOptions::Format::Text), Commands{{&check.sub}}};

  // fmt
  cl::opt<bool> fmtCheck{"check", cl::desc("change nothing: list the files that are not formatted and exit\n"
                                           "with 1 if there are any (for CI)"),
                         Commands{{&fmt.sub}}};

  // explain, emit, build and run
  cl::list<std::string, bool, AssignmentParser> set{
      "set", cl::value_desc("NAME=VALUE"),
      cl::desc("plan with this value of param NAME (repeatable; e.g. edges=4e9);\n"
               "emit, build and run make it the program's default (the program's\n"
               "own --NAME flag still overrides it)"),
      planning};
  cl::opt<unsigned long long, false, SizeParser<false>> memory{
      "memory", cl::value_desc("SIZE"),
      cl::desc("plan for this memory budget instead of the script's (e.g. 256MiB, or 50% of\nthis machine's physical memory)"), planning};
  cl::opt<unsigned long long, false, SizeParser<true>> block{
      "block", cl::value_desc("SIZE"),
      cl::desc("plan with this block size instead of the script's or the default\n"
               "(a power of two of at least 4KiB)"),
      planning};

  // explain
  cl::opt<ExplainOptions::Format, false, ChoiceParser<ExplainOptions::Format>> format{
      "format", cl::value_desc("FORMAT"),
      cl::desc("text (default), json (for tools) or dot (a Graphviz drawing with\n"
               "the phases as clusters)"),
      cl::values(clEnumValN(ExplainOptions::Text, "text", ""), clEnumValN(ExplainOptions::Json, "json", ""),
                 clEnumValN(ExplainOptions::Dot, "dot", "")),
      cl::init(ExplainOptions::Text), Commands{{&explain.sub}}};
  cl::opt<unsigned> ranks{"ranks", cl::value_desc("P"),
                          cl::desc("the plan of a program built with --mpi and run as P ranks: which\n"
                                   "nodes are spread over the ranks, and per phase what each rank\n"
                                   "reads, writes and sends (docs/distributed.md)"),
                          cl::init(0), Commands{{&explain.sub}}};
  cl::opt<bool> calibrate{"calibrate",
                          cl::desc("build the program (as run does), run it at a small scale of its\n"
                                   "count params (about 2^20 elements at the largest node), and plan\n"
                                   "with the selectivities and queue peaks it measured instead of\n"
                                   "the planner's assumptions (docs/estimates.md); emit, build and\n"
                                   "run build that estimate into the program, whose --stats shows it\n"
                                   "beside the static one"),
                          Commands{{&explain.sub, &emit.sub, &build.sub, &run.sub}}};

  // emit and build
  cl::opt<std::string> output{"o", cl::Prefix, cl::value_desc("FILE"),
                              cl::desc("write the C++ (emit; default: stdout, or -) or the executable\n"
                                       "(build; default: the script's name without .flow) to FILE;\n"
                                       "build also leaves FILE.cpp beside it; both are replaced only if\n"
                                       "flowc wrote them"),
                              Commands{{&emit.sub, &build.sub}}};
  cl::opt<std::string> depfile{"depfile", cl::value_desc("FILE"),
                               cl::desc("also write FILE, a make rule naming what the C++ is made from\n"
                                        "(the script, the modules it uses, its imported headers), for\n"
                                        "build systems (CMake's flow_add_executable uses it)"),
                               Commands{{&emit.sub}}};

  // build and run
  cl::opt<std::string> cxx{"cxx", cl::value_desc("COMPILER"),
                           cl::desc("the C++ compiler (default: $CXX, else c++)"), compiling};
  cl::opt<std::string, false, LevelParser> optimization{
      "O", cl::Prefix, cl::value_desc("LEVEL"), cl::init("2"),
      cl::desc("the C++ compiler's optimization level: 0, 1, 2 (default), 3, s, z,\n"
               "g or fast (-O1 or -O 1)"),
      compiling};
  cl::opt<bool> debug{"g", cl::desc("debug information, with the generated C++ mapped to the script's\n"
                                     "lines (gdb: break script.flow:12)"),
                      compiling};
  cl::list<std::string> cxxflags{"cxxflag", cl::value_desc("FLAG"),
                                 cl::desc("one more flag for the C++ compiler, after those of $CXXFLAGS\n"
                                          "(repeatable; e.g. --cxxflag=-fsanitize=undefined); run\n"
                                          "builds again when the flags change"),
                                 compiling};
  cl::opt<unsigned> jobs{"j", cl::Prefix, cl::value_desc("N"),
                         cl::desc("run up to N compilers at once: main(), the script's statements\n"
                                  "and the runtime's sorters, queues and vectors of its types\n"
                                  "compile apart, at once\n"
                                  "(default: $FLOW_BUILD_JOBS, else the CPUs flowc may use; 1: the\n"
                                  "program in one translation unit)"),
                         compiling};
  cl::opt<bool> verbose{"verbose", cl::desc("print the C++ compiler's command line"), compiling};
  cl::opt<bool> mpi{"mpi",
                    cl::desc("a program that runs as the ranks of Open MPI: `mpirun -np P prog`\n"
                             "splits its sources, sorts and counts over P processes and computes\n"
                             "what one process computes (docs/distributed.md); built with\n"
                             "mpicxx's flags. Without mpirun it runs as one rank"),
                    Commands{{&emit.sub, &build.sub, &run.sub}}};
  ShortName verboseShort{"v", verbose};

  // every command
  cl::opt<Color, false, ChoiceParser<Color>> color{
      "color", cl::value_desc("WHEN"),
      cl::desc("color diagnostics: auto (default: when stderr is a terminal,\n"
               "unless NO_COLOR is set or TERM=dumb), always or never"),
      cl::values(clEnumValN(Color::Auto, "auto", ""), clEnumValN(Color::Always, "always", ""),
                 clEnumValN(Color::Never, "never", "")),
      cl::init(Color::Auto), everyCommandWithFmt};
  cl::list<std::string> includeDirs{"I", cl::Prefix, cl::value_desc("DIR"),
                                    cl::desc("look for imported C++ headers in DIR too (repeatable; -IDIR or\n"
                                             "-I DIR); build and run pass it to the C++ compiler"),
                                    everyCommand};

  cl::opt<unsigned> maxStr{"max-str", cl::value_desc("BYTES"),
                           cl::desc("the most bytes a str holds (default 254, at most 65534; odd\n"
                                    "sizes round up): a str is held inline at this size in records,\n"
                                    "sorts and files, and a longer value stops the program with an\n"
                                    "error naming it"),
                           cl::init(254), everyCommand};

  cl::opt<std::string> stdlib{"stdlib", cl::value_desc("DIR"),
                              cl::desc("the standard library for 'use std.NAME' (default: $FLOW_STDLIB,\n"
                                       "else the stdlib folder installed beside flowc)"),
                              everyCommand};

  // every command, and flowc without one
  cl::opt<bool> help{"help", cl::desc("print this help"), everyCommandAndNone};
  ShortName helpShort{"h", help};
  cl::opt<bool> version{"version", cl::desc("print flowc's version and the ANTLR and Clang it links"),
                        everyCommandAndNone};

  Command* find(StringRef name) {
    for (Command* command : commands)
      if (command->sub.getName() == name) return command;
    return nullptr;
  }
  /// "unknown command 'NAME'", with the nearest command if it is near (`biuld`: build).
  std::string unknown(StringRef name) const {
    std::vector<std::string> names;
    for (const Command* command : commands) names.push_back(command->sub.getName().str());
    const std::string nearest = flow::nearest_name(name, names);
    return "unknown command '" + name.str() + "'" + (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)");
  }
};

bool startsWith(StringRef s, StringRef prefix) { return s.startswith(prefix); }

/// The options of `sub` in the order of the table, without the aliases.
std::vector<cl::Option*> optionsOf(cl::SubCommand& sub) {
  std::vector<cl::Option*> options;
  for (auto& entry : cl::getRegisteredOptions(sub))
    if (entry.second->getOptionHiddenFlag() == cl::NotHidden &&
        std::find(options.begin(), options.end(), entry.second) == options.end())
      options.push_back(entry.second);
  // Members of one object: the order of their addresses is the order of declaration.
  std::sort(options.begin(), options.end(), std::less<cl::Option*>());
  return options;
}

/// `--set NAME=VALUE`, `-I DIR`, `--help, -h` (with ", " between the names).
std::string spelling(cl::Option& option, cl::SubCommand& sub, const char* between = ", ") {
  auto name = [](StringRef arg) { return (arg.size() == 1 ? "-" : "--") + arg.str(); };
  std::string text = name(option.ArgStr);
  if (option.getValueExpectedFlag() == cl::ValueRequired) text += " " + option.ValueStr.str();
  for (auto& entry : cl::getRegisteredOptions(sub))
    if (entry.second->getOptionHiddenFlag() != cl::NotHidden &&
        &static_cast<ShortName*>(entry.second)->of == &option)
      text += between + name(entry.second->ArgStr);
  return text;
}

/// `  NAME                 TEXT`, TEXT's lines aligned in a column.
void printEntry(std::ostream& out, const std::string& name, StringRef text) {
  const size_t column = 23;
  out << "  " << name;
  if (name.size() + 2 >= column) out << '\n' << std::string(column, ' ');
  else out << std::string(column - 2 - name.size(), ' ');
  std::pair<StringRef, StringRef> lines = text.split('\n');
  out << lines.first.str() << '\n';
  while (!lines.second.empty()) {
    lines = lines.second.split('\n');
    out << std::string(column, ' ') << lines.first.str() << '\n';
  }
}

/// The options every command that reads a script as a program takes (--color, -I,
/// --max-str, --help, …): all but fmt, which takes only --color, --help and --version.
bool inEveryCommand(Table& table, cl::Option& option) {
  for (Command* command : table.commands)
    if (command != &table.fmt && command != &table.cache && !option.Subs.count(&command->sub)) return false;
  return true;
}

/// `flowc --help`: every command, the options of each by name, the common ones in full.
void printOverview(Table& table) {
  std::ostream& out = std::cout;
  out << kTitle << "\nusage: flowc <command> [options] FILE...\n"
      << "       flowc <command> --help      the command's options in full\n"
      << "       flowc --version | --help\n\ncommands:\n";
  for (Command* command : table.commands) {
    printEntry(out, command->sub.getName().str() + " " + command->operands, command->sub.getDescription());
    std::string line = "options:";
    for (cl::Option* option : optionsOf(command->sub)) {
      if (inEveryCommand(table, *option)) continue;
      std::string name = spelling(*option, command->sub, "/");
      if (line.size() + name.size() + 2 > 64) {
        printEntry(out, "", line + ",");
        line = "        ";
      } else if (line != "options:") {
        line += ",";
      }
      line += " " + name;
    }
    printEntry(out, "", line);
  }
  out << "\noptions of every command (fmt takes only --color, --help and --version, cache --help and --version):\n";
  for (cl::Option* option : optionsOf(table.check.sub))
    if (inEveryCommand(table, *option)) printEntry(out, spelling(*option, table.check.sub), option->HelpStr);
  out << '\n' << kExitStatus;
}

/// `flowc COMMAND --help`: its usage, what it does, every option it takes.
void printHelp(Command& command) {
  std::ostream& out = std::cout;
  out << "usage: flowc " << command.sub.getName().str() << " [options] " << command.operands << "\n\n"
      << command.sub.getDescription().str() << "\n\noptions:\n";
  for (cl::Option* option : optionsOf(command.sub))
    printEntry(out, spelling(*option, command.sub), option->HelpStr);
  if (!command.notes.empty()) out << '\n' << command.notes;
  out << '\n' << kExitStatus;
}

int usageError(const std::string& message, const Command* command) {
  std::string help = command ? "flowc " + command->sub.getName().str() + " --help" : "flowc --help";
  std::cerr << "flowc: " << message << "\n(run '" << help << "' for usage)\n";
  return 2;
}

/// Parses `args` with the table. llvm::cl writes some errors (a missing or bad value) to
/// llvm::errs() whatever stream it is given, so all of them go there and stderr is caught
/// in a temporary file meanwhile; `errors` gets what it said.
bool parse(const std::vector<const char*>& args, std::string& errors) {
  std::fflush(stderr);
  FILE* caught = std::tmpfile();
  int saved = caught ? dup(STDERR_FILENO) : -1;
  if (saved >= 0) dup2(fileno(caught), STDERR_FILENO);
  bool ok = cl::ParseCommandLineOptions(int(args.size()), args.data(), "", &llvm::errs(), nullptr,
                                        /*LongOptionsUseDoubleDash=*/true);
  llvm::errs().flush();
  if (saved >= 0) {
    dup2(saved, STDERR_FILENO);
    close(saved);
  }
  if (caught) {
    std::rewind(caught);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, caught)) > 0;) errors.append(buffer, n);
    std::fclose(caught);
  }
  return ok;
}

/// llvm::cl's first complaint, in flowc's words.
std::string describe(const std::string& errors, const Command* command) {
  llvm::SmallVector<StringRef, 4> lines;
  StringRef(errors).split(lines, '\n', -1, false);
  for (StringRef& line : lines) line.consume_front("flowc: ");
  if (lines.empty()) return "bad command line";
  StringRef first = lines[0];
  if (first.consume_front("Unknown command line argument '")) {
    std::string arg = first.take_front(first.find("'.  Try:")).str();
    std::string message = (startsWith(arg, "-") ? "unknown option '" : "unexpected argument '") + arg + "'";
    if (command) message += " for '" + command->sub.getName().str() + "'";
    // llvm::cl names the nearest option however far it is: only a near one helps.
    StringRef nearest;
    if (lines.size() > 1 && lines[1].consume_front("Did you mean '")) nearest = lines[1].rtrim("'?");
    StringRef given = StringRef(arg).ltrim('-').split('=').first, near = nearest.ltrim('-').split('=').first;
    if (!nearest.empty() && (given == near || flow::near_name(given, near))) // `-dump-ast`: the dashes
      message += " (did you mean '" + nearest.str() + "'?)";
    else if (command && command->kind == Invocation::Run)
      message += " (program flags go after --)";
    return message;
  }
  if (first.consume_front("for the ")) {
    auto [option, problem] = first.split(" option: ");
    if (problem == "requires a value!") return option.str() + " needs a value";
    if (startsWith(problem, "does not allow a value!")) return option.str() + " takes no value";
    if (problem.contains("is invalid value for boolean argument!"))
      return option.str() + ": " + problem.split(" is invalid").first.str() + " is not true or false";
    return option.str() + ": " + problem.str();
  }
  return first.str();
}

/// `text` split into words as a shell would (quotes, backslashes).
std::vector<std::string> shellWords(const std::string& text) {
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char*, 16> words;
  cl::TokenizeGNUCommandLine(text, saver, words);
  return std::vector<std::string>(words.begin(), words.end());
}

/// The C++ compiler's command: --cxx, else $CXX, else c++, split as a shell would
/// (`ccache g++`).
std::vector<std::string> compilerCommand(const std::string& cxx) {
  const char* env = std::getenv("CXX");
  std::vector<std::string> words = shellWords(!cxx.empty() ? cxx : env && *env ? env : "c++");
  return words.empty() ? std::vector<std::string>{"c++"} : words;
}

/// $CXXFLAGS split as a shell would, then every --cxxflag.
std::vector<std::string> compilerFlags(const cl::list<std::string>& cxxflags) {
  const char* env = std::getenv("CXXFLAGS");
  std::vector<std::string> flags = shellWords(env ? env : "");
  flags.insert(flags.end(), cxxflags.begin(), cxxflags.end());
  return flags;
}

} // namespace

std::optional<int> parseCommandLine(int argc, char** argv, Invocation& out) {
  // LLVM's libraries register hundreds of options of their own, some (--help, --version)
  // on the first parse: parse nothing once so that they are all there, then drop them,
  // so that the parser knows the table's only.
  const char* nothing[] = {"flowc"};
  cl::ParseCommandLineOptions(1, nothing);
  cl::ResetCommandLineParser();
  static Table table;

  if (argc < 2) return usageError("no command given", nullptr);
  std::string first = argv[1];
  Command* command = table.find(first);
  // The words `help [COMMAND]` and `version` do what --help and --version do.
  if (first == "help") {
    Command* about = argc > 2 ? table.find(argv[2]) : nullptr;
    if (argc > 2 && !about) return usageError(table.unknown(argv[2]), nullptr);
    about ? printHelp(*about) : printOverview(table);
    return 0;
  }
  if (first == "version") {
    std::cout << versionText();
    return 0;
  }
  if (!command && !startsWith(first, "-")) return usageError(table.unknown(first), nullptr);

  // `flowc run FILE -- ARGS`: ARGS are the program's, never flowc's.
  std::vector<const char*> args = {"flowc"};
  std::vector<std::string> runArgs;
  for (int i = 1; i < argc; ++i) {
    if (command == &table.run && std::string(argv[i]) == "--") {
      runArgs.assign(argv + i + 1, argv + argc);
      break;
    }
    args.push_back(argv[i]);
  }
  std::string errors;
  if (!parse(args, errors)) return usageError(describe(errors, command), command);
  if (table.help) {
    command ? printHelp(*command) : printOverview(table);
    return 0;
  }
  if (table.version) {
    std::cout << versionText();
    return 0;
  }
  if (!command) return usageError("no command given", nullptr);

  std::string name = "'" + first + "'";
  const bool manyFiles = command == &table.check || command == &table.fmt;
  if (command == &table.cache) {
    out.command = Invocation::Cache;
    out.cacheWords.assign(table.cacheWords.begin(), table.cacheWords.end());
    out.build.compiler = compilerCommand(table.cxx); // precompile: flowc build's defaults
    out.build.cxxflags = compilerFlags(table.cxxflags);
    out.build.verbose = true;
    return std::nullopt;
  }
  if (table.files.empty() && command != &table.lsp) return usageError(name + (manyFiles ? " needs at least one FILE" : " needs a FILE"), command);
  if (!manyFiles && table.files.size() > 1)
    return usageError(name + " takes one FILE" + (command == &table.run ? " (program flags go after --)" : ""),
                      command);

  // The flag is the variable set for this run: sema reads one place.
  if (table.stdlib.getNumOccurrences()) setenv("FLOW_STDLIB", table.stdlib.c_str(), 1);
  // auto: a terminal, unless NO_COLOR is set (no-color.org) or TERM=dumb.
  const char* noColor = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  bool color = table.color == Color::Always ||
               (table.color == Color::Auto && isatty(STDERR_FILENO) && !(noColor && *noColor) &&
                !(term && std::string(term) == "dumb"));
  std::vector<std::string> includeDirs(table.includeDirs.begin(), table.includeDirs.end());
  if (table.maxStr < 1 || table.maxStr > 65534)
    return usageError("--max-str must be between 1 and 65534 bytes, not " + std::to_string(table.maxStr), command);
  const uint64_t strCapacity = (table.maxStr + 1) / 2 * 2; // even: a str has no padding byte
  plan::PlanOptions plan;
  for (const std::string& assignment : table.set) {
    size_t eq = assignment.find('=');
    plan.setParams[assignment.substr(0, eq)] = assignment.substr(eq + 1);
  }
  if (table.memory.getNumOccurrences()) plan.memoryBytes = table.memory;
  if (table.block.getNumOccurrences()) plan.blockBytes = table.block;

  // -j, else $FLOW_BUILD_JOBS, else the CPUs this process may run on (its affinity).
  unsigned jobs = table.jobs;
  if (!table.jobs.getNumOccurrences()) {
    const char* env = std::getenv("FLOW_BUILD_JOBS");
    cpu_set_t cpus;
    jobs = env && std::atoi(env) > 0                         ? static_cast<unsigned>(std::atoi(env))
           : sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? static_cast<unsigned>(CPU_COUNT(&cpus))
                                                            : 1;
  }
  jobs = std::max(jobs, 1u);
  out.command = command->kind;
  switch (command->kind) {
  case Invocation::Cache: break; // above
  case Invocation::Check:
    out.check.files.assign(table.files.begin(), table.files.end());
    out.check.dumpAst = table.dumpAst;
    out.check.dumpTypes = table.dumpTypes;
    out.check.parseOnly = table.parseOnly;
    out.check.summary = table.summary;
    out.check.format = table.diagnosticsFormat;
    out.check.includeDirs = includeDirs;
    out.check.strCapacity = strCapacity;
    out.check.color = color;
    break;
  case Invocation::Lsp:
    out.lsp.includeDirs = includeDirs;
    out.lsp.strCapacity = strCapacity;
    break;
  case Invocation::Fmt:
    out.fmt.files.assign(table.files.begin(), table.files.end());
    out.fmt.check = table.fmtCheck;
    out.fmt.color = color;
    break;
  case Invocation::Explain:
    out.explain.file = table.files.front();
    out.explain.format = table.format;
    out.explain.plan = plan;
    out.explain.plan.ranks = table.ranks;
    out.explain.plan.spreadOverRanks = table.ranks > 0;
    out.explain.includeDirs = includeDirs;
    out.explain.strCapacity = strCapacity;
    out.explain.color = color;
    out.explain.calibrate = table.calibrate;
    out.explain.build.file = table.files.front();
    out.explain.build.compiler = compilerCommand(table.cxx);
    out.explain.build.optimization = table.optimization;
    out.explain.build.cxxflags = compilerFlags(table.cxxflags);
    out.explain.build.verbose = table.verbose;
    out.explain.build.jobs = jobs;
    out.explain.build.plan = plan;
    out.explain.build.includeDirs = includeDirs;
    out.explain.build.strCapacity = strCapacity;
    out.explain.build.color = color;
    break;
  case Invocation::Emit:
  case Invocation::Build:
  case Invocation::Run:
    out.build.file = table.files.front();
    out.build.output = table.output;
    out.build.depfile = table.depfile;
    out.build.compiler = compilerCommand(table.cxx);
    out.build.optimization = table.optimization;
    out.build.debug = table.debug;
    out.build.cxxflags = compilerFlags(table.cxxflags);
    out.build.verbose = table.verbose;
    out.build.jobs = jobs;
    out.build.calibrate = table.calibrate;
    out.build.runArgs = runArgs;
    out.build.plan = plan;
    out.build.plan.spreadOverRanks = table.mpi;
    out.build.includeDirs = includeDirs;
    out.build.strCapacity = strCapacity;
    out.build.color = color;
    break;
  }
  return std::nullopt;
}

} // namespace flow::driver
