#include "driver/emit_command.hpp"

#include "codegen/codegen.hpp"
#include "driver/calibrate.hpp"
#include "driver/environment.hpp"
#include "driver/files.hpp"
#include "driver/frontend.hpp"
#include "driver/installation.hpp"
#include "driver/precompiled_header.hpp"
#include "driver/run_command.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace flow::driver {

namespace {

/// The program's name: the script's file name without .flow ("stdin" for `-`).
std::string programName(const std::string& file) { return file == "-" ? "stdin" : fs::path(file).stem().string(); }

/// Parses, checks, plans and generates; empty on errors (already reported). `inputs`
/// gets the files the C++ was made from: the script, its modules, its imported headers.
std::optional<codegen::GeneratedCpp> generate(const BuildOptions& options, std::vector<std::string>* inputs = nullptr) {
  CompiledScript script;
  DiagnosticEngine diags(std::cerr, options.color);
  FrontEndOptions frontEnd;
  frontEnd.includeDirs = options.includeDirs;
  frontEnd.strCapacity = options.strCapacity;
  if (!compileScript(options.file, frontEnd, diags, script)) return std::nullopt;
  checkSetParams(*script.checked, options.plan.setParams);
  std::optional<plan::Plan> plan = plan::makePlan(*script.checked, options.plan, diags);
  diags.flush();
  if (!plan) return std::nullopt;
  codegen::CodegenOptions cg;
  cg.programName = programName(options.file);
  cg.lineDirectives = options.debug;
  for (const auto& [name, value] : options.plan.setParams) cg.setParams.insert(name);
  std::optional<plan::Plan> calibrated;
  if (options.calibrate) {
    // The program without the calibrated estimate makes the measurements; the plan with
    // them is priced beside the static one.
    BuildOptions program = options;
    program.calibrate = false;
    program.output.clear();
    program.depfile.clear();
    calibrated = calibratedPlan(program, *script.checked, *plan, diags);
    if (!calibrated) return std::nullopt;
    cg.calibrated = &*calibrated;
    cg.calibratedBy = "a run at";
    for (const auto& [name, value] : calibrated->calibration->params) cg.calibratedBy += " " + name + "=" + value;
    cg.calibratedBy += " (flowc build --calibrate)";
  }
  if (inputs) {
    inputs->push_back(options.file);
    inputs->insert(inputs->end(), script.checked->moduleFiles.begin(), script.checked->moduleFiles.end());
    for (const auto& header : script.checked->headers) inputs->push_back(header->path);
  }
  return codegen::generateCpp(*script.checked, *plan, cg);
}

/// A make rule "target: input…" (what build systems read as a depfile), spaces and
/// other special characters of names escaped as make wants.
std::string makeRule(const std::string& target, const std::vector<std::string>& inputs) {
  auto escaped = [](const std::string& name) {
    std::string out;
    for (char c : name) {
      if (c == ' ' || c == '#' || c == '\\') out += '\\';
      if (c == '$') out += '$';
      out += c;
    }
    return out;
  };
  std::string rule = escaped(target) + ":";
  for (const std::string& input : inputs) rule += " \\\n  " + escaped(input);
  return rule + "\n";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The folder of `flowc run`'s cache (and of the precompiled runtime `flowc build` uses
/// too): $FLOW_CACHE_DIR, else $XDG_CACHE_HOME/flow, else ~/.cache/flow, else (no HOME)
/// /tmp/flow-cache-UID. It holds executables that flowc runs, so it must be the user's alone: created with mode 0700 (one others may only read
/// is made so), and refused when it is a symbolic link, not a folder, someone else's or
/// writable by others — another user could have planted an executable in it (or a
/// symbolic link for flowc to write through). `quiet`: no message when it cannot be used.
std::optional<fs::path> cacheDirectory(bool quiet = false) {
  const char* flowCache = std::getenv("FLOW_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir = flowCache && *flowCache ? fs::path(flowCache)
                 : xdg && *xdg          ? fs::path(xdg) / "flow"
                 : home && *home        ? fs::path(home) / ".cache" / "flow"
                                        : temporaryFolder() / ("flow-cache-" + std::to_string(geteuid()));
  const std::string advice = "; set FLOW_CACHE_DIR to a folder of your own";
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec); // the parents: the usual modes
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (!quiet)
      std::cerr << "flowc: error: cannot create the cache folder '" << dir.string() << "': " << std::strerror(errno)
                << advice << "\n";
    return std::nullopt;
  }
  struct stat st {};
  std::string problem;
  if (::lstat(dir.c_str(), &st) != 0) problem = std::strerror(errno);
  else if (S_ISLNK(st.st_mode)) problem = "it is a symbolic link";
  else if (!S_ISDIR(st.st_mode)) problem = "it is not a folder";
  else if (st.st_uid != geteuid()) problem = "it belongs to user " + std::to_string(st.st_uid) + ", not to you";
  else if (st.st_mode & 022) { // others may have planted files in it: nothing there is to be trusted
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    problem = std::string("others may write in it (mode ") + mode + "); empty it and chmod 700 it";
  } else if ((st.st_mode & 077) && ::chmod(dir.c_str(), 0700) != 0) { // only readable: made private
    problem = std::string("cannot make it private (chmod 700): ") + std::strerror(errno);
  }
  if (!problem.empty()) {
    if (!quiet)
      std::cerr << "flowc: error: refusing the cache folder '" << dir.string() << "': " << problem << advice << "\n";
    return std::nullopt;
  }
  return dir;
}

/// The flags of each compile of a program: the compiler, the options of the runtime
/// (and its precompiled headers), -g, the include folders, $CXXFLAGS and --cxxflag.
std::vector<std::string> compileFlags(const BuildOptions& options) {
  std::vector<std::string> args = options.compiler;
  args.insert(args.end(), {"-std=c++20", "-O" + options.optimization, "-pthread",
                            "-I" + runtimeLocation().includeDir});
  if (options.debug) args.push_back("-g");
  if (std::optional<fs::path> cache = cacheDirectory(/*quiet=*/!options.verbose)) {
    // Everything that changes the code the compiler makes, as in the program's compile.
    std::vector<std::string> flags = args;
    flags.insert(flags.end(), options.cxxflags.begin(), options.cxxflags.end());
    const std::vector<std::string> pch = precompiledRuntime(flags, *cache, runtimeLocation().includeDir, options.verbose);
    args.insert(args.end(), pch.begin(), pch.end());
  }
  fs::path scriptDir = fs::path(options.file).parent_path();
  args.push_back("-I" + (scriptDir.empty() ? std::string(".") : scriptDir.string()));
  for (const std::string& dir : options.includeDirs) args.push_back("-I" + dir);
  args.insert(args.end(), options.cxxflags.begin(), options.cxxflags.end());
  return args;
}

/// How a program is built in parts (the generated C++ says how: "Built in parts"): at
/// most `jobs` compilers at once, part 0 compiling main() and the classes left to it,
/// each other part the classes it is given (their numbers). The classes go, the most
/// costly first, to the part with the least work so far; part 0 starts with main()'s,
/// the others with loading the precompiled runtime. One part: the whole program.
std::vector<std::vector<int>> splitIntoParts(const codegen::GeneratedCpp& program, unsigned jobs) {
  const double partOverhead = 0.4; // seconds of loading the precompiled runtime (gcc 12), as in mainCost
  std::vector<codegen::PartClass> classes = program.partClasses;
  std::stable_sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.cost > b.cost; });
  const size_t parts = std::min<size_t>(jobs, classes.size() + 1);
  std::vector<std::vector<int>> split(parts);
  std::vector<double> work(parts, partOverhead);
  work[0] = program.mainCost;
  for (const codegen::PartClass& c : classes) {
    const size_t least = static_cast<size_t>(std::min_element(work.begin(), work.end()) - work.begin());
    split[least].push_back(c.number);
    work[least] += c.cost;
  }
  std::vector<std::vector<int>> used = {split[0]}; // main() is always compiled
  for (size_t p = 1; p < parts; ++p)
    if (!split[p].empty()) used.push_back(split[p]);
  return used;
}

/// flowc's exit status for a compiler command that did not succeed: it could not be run
/// (the user's to fix: 1), or it failed (a checked script must compile: flowc's bug, 3),
/// with the compiler's words from `log`.
int compilerFailed(const BuildOptions& options, const std::vector<std::string>& args, const CommandResult& result,
                   const std::string& log, const std::string& cpp) {
  if (result.execError != 0) {
    std::cerr << "flowc: error: cannot run the C++ compiler '" << args[0] << "': " << std::strerror(result.execError)
              << "\nflowc compiles with --cxx COMPILER, else $CXX, else c++ (a C++20 compiler: g++ 12 or clang++ 14 "
                 "or later)\n";
    return 1;
  }
  // A C++ compiler that rejects the flags the user gave ($CXXFLAGS, --cxxflag) fails on any
  // program: that is the environment's to fix, not flowc's bug.
  if (!options.cxxflags.empty()) {
    const std::string probeLog = log + ".flags";
    std::vector<std::string> probe = options.compiler;
    probe.insert(probe.end(), {"-std=c++20", "-x", "c++", "-fsyntax-only"});
    probe.insert(probe.end(), options.cxxflags.begin(), options.cxxflags.end());
    probe.push_back("/dev/null");
    const CommandResult flagsAlone = runCommand(probe, probeLog);
    std::error_code ec;
    if (flagsAlone.status != 0 || flagsAlone.execError != 0) {
      std::string given;
      for (const std::string& f : options.cxxflags) given += " " + f;
      std::cerr << "flowc: error: the C++ compiler (" << args[0] << ") rejects the flags given by $CXXFLAGS and "
                << "--cxxflag (" << given.substr(1) << "); it said:\n";
      std::istringstream lines(readFile(probeLog));
      std::string line;
      for (int n = 0; n < 10 && std::getline(lines, line); ++n) std::cerr << "  " << line << '\n';
      fs::remove(probeLog, ec);
      return 1;
    }
    fs::remove(probeLog, ec);
  }
  std::cerr << "flowc: internal error: the generated C++ for " << options.file << " did not compile.\n"
            << "If the C++ compiler (" << args[0] << ") works and supports C++20, this is a bug in flowc, not in\n"
            << "your script: please report it with the script and " << cpp << ". The compiler said:\n";
  std::istringstream lines(readFile(log));
  std::string line;
  for (int n = 0; n < 20 && std::getline(lines, line); ++n) std::cerr << "  " << line << '\n';
  return 3;
}

/// Compiles `program` (written to `cpp`) into `exe`, in parts on up to options.jobs
/// compilers at once, then linked; `extra` goes to the compile of main() (the dependency
/// file of `flowc run`). 0, or flowc's exit status (compilerFailed).
int compile(const BuildOptions& options, const codegen::GeneratedCpp& program, const std::string& cpp,
            const std::string& exe, const std::vector<std::string>& extra = {}) {
  const std::vector<std::vector<int>> parts = splitIntoParts(program, options.jobs);
  const std::vector<std::string> flags = compileFlags(options);
  const std::vector<std::string> library = {runtimeLocation().library, "-lboost_thread", "-o", exe};
  std::vector<Command> compiles;
  std::vector<std::string> objects; // of the parts, linked at the end
  if (parts.size() == 1) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(cpp);
    args.insert(args.end(), library.begin(), library.end());
    compiles.push_back({args, exe + ".log", ""});
  } else {
    for (size_t p = 0; p < parts.size(); ++p) {
      std::vector<std::string> args = flags;
      args.push_back("-DFLOW_PARTS");
      if (p == 0) {
        args.push_back("-DFLOW_PART_MAIN");
        for (size_t other = 1; other < parts.size(); ++other)
          for (int k : parts[other]) args.push_back("-DFLOW_PART_EXTERN_" + std::to_string(k));
        args.insert(args.end(), extra.begin(), extra.end());
      } else {
        for (int k : parts[p]) args.push_back("-DFLOW_PART_CLASS_" + std::to_string(k));
      }
      objects.push_back(exe + ".part" + std::to_string(p) + ".o");
      args.insert(args.end(), {"-c", cpp, "-o", objects.back()});
      compiles.push_back({args, objects.back() + ".log", ""});
    }
  }
  // Each step's commands run at once: printed with -v, the first failure reported, and
  // every object and log removed at the end, whatever happened.
  std::vector<std::string> leftovers = objects;
  auto runStep = [&](const std::vector<Command>& step) {
    for (const Command& c : step) {
      leftovers.push_back(c.log);
      if (!options.verbose) continue;
      for (const std::string& a : c.args) std::cerr << a << ' ';
      std::cerr << '\n';
    }
    const std::vector<CommandResult> results = runCommands(step);
    for (size_t i = 0; i < step.size(); ++i)
      if (results[i].status != 0 || results[i].execError != 0)
        return compilerFailed(options, step[i].args, results[i], step[i].log, cpp);
    return 0;
  };
  int status = runStep(compiles);
  if (status == 0 && !objects.empty()) {
    std::vector<std::string> link = options.compiler;
    link.push_back("-pthread");
    link.insert(link.end(), options.cxxflags.begin(), options.cxxflags.end());
    link.insert(link.end(), objects.begin(), objects.end());
    link.insert(link.end(), library.begin(), library.end());
    status = runStep({{link, exe + ".log", ""}});
  }
  std::error_code ec;
  for (const std::string& file : leftovers) fs::remove(file, ec);
  return status;
}

/// Whether `flowc build` may write `path`: it does not exist, or flowc wrote it (a C++
/// file flowc generated, an executable holding the marker of generated programs).
bool mayReplace(const fs::path& path, const std::string& marker) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return true;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return false;
  return readFile(path.string()).find(marker) != std::string::npos;
}


/// The headers a compiler's make-style dependency file (-MMD) lists, absolute, one a
/// line: "target: a.hpp b.hpp \\\n c.hpp", spaces in names escaped with a backslash.
std::string headerList(const std::string& dependencyFile) {
  const std::string text = readFile(dependencyFile);
  std::vector<std::string> words(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == '\n') { ++i; if (!words.back().empty()) words.emplace_back(); continue; }
      words.back() += text[++i]; // an escaped character of a name
    } else if (std::isspace(static_cast<unsigned char>(text[i]))) {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += text[i];
    }
  }
  std::string list;
  for (size_t k = 1; k < words.size(); ++k) // words[0] is the target
    if (!words[k].empty()) list += fs::absolute(words[k]).string() + '\n';
  return list;
}

/// Whether the cached program `exe` exists and no header it was built from changed since.
bool upToDate(const fs::path& exe) {
  std::error_code ec;
  if (!fs::exists(exe, ec)) return false;
  // The C++ is written just before compiling: a header changed while it compiled is newer.
  const auto built = fs::last_write_time(exe.string() + ".cpp", ec);
  if (ec) return false;
  std::istringstream headers(readFile(exe.string() + ".headers"));
  std::string header;
  while (std::getline(headers, header)) {
    const auto changed = fs::last_write_time(header, ec);
    if (ec || changed > built) return false;
  }
  return true;
}

} // namespace

int runEmit(const BuildOptions& options) {
  std::vector<std::string> inputs;
  std::optional<codegen::GeneratedCpp> program = generate(options, &inputs);
  if (!program) return 1;
  const std::string* code = &program->code;
  if (!options.depfile.empty() && options.file != "-" &&
      !writeNewFile(options.depfile, makeRule(options.output.empty() ? "-" : options.output, inputs), 0666))
    return 1;
  if (options.output.empty() || options.output == "-") {
    std::cout << *code;
    return 0;
  }
  std::ofstream out(options.output);
  out << *code;
  if (!out) {
    std::cerr << "flowc: error: cannot write '" << options.output << "'\n";
    return 1;
  }
  return 0;
}

int runBuild(const BuildOptions& options) {
  if (options.file == "-" && options.output.empty()) {
    std::cerr << "flowc: error: 'build -' (a script on standard input) needs -o FILE\n";
    return 2;
  }
  std::optional<codegen::GeneratedCpp> program = generate(options);
  if (!program) return 1;
  std::string exe = options.output.empty() ? programName(options.file) : options.output;
  std::string cpp = exe + ".cpp";
  // Never over a file of the user's: both outputs are replaced only if flowc wrote them.
  for (const auto& [path, marker] : {std::pair{exe, std::string(codegen::kBuiltByMarker)},
                                     std::pair{cpp, std::string("// Generated by flowc ")}}) {
    if (!mayReplace(path, marker)) {
      std::cerr << "flowc: error: '" << path << "' exists and flowc did not write it; not replacing it "
                << "(choose another -o, or remove the file)\n";
      return 1;
    }
  }
  if (!writeNewFile(cpp, program->code, 0666)) return 1;
  return compile(options, *program, cpp, exe);
}

int runLogged(const std::vector<std::string>& args, const std::string& log, const std::string& directory) {
  const CommandResult result = runCommand(args, log, directory);
  if (result.execError == 0) return result.status;
  std::cerr << "flowc: error: cannot run '" << args[0] << "' in '" << directory
            << "': " << std::strerror(result.execError) << "\n";
  return -1;
}

std::variant<std::string, int> cachedProgram(const BuildOptions& options) {
  std::optional<codegen::GeneratedCpp> program = generate(options);
  if (!program) return 1;
  const std::string* code = &program->code;
  // Built once per content: the generated C++ (with the script's path as spelled made
  // absolute, so ./x.flow and x.flow are one program), the runtime library and the
  // compiler command (compiler, level, include directories made absolute, extra flags;
  // each ends in a NUL so that no two lists of flags hash alike). Headers the program
  // includes are checked at each run against the list the compiler made (below).
  std::string keyed = *code;
  if (options.file != "-") {
    std::error_code ec;
    const std::string absolute = fs::weakly_canonical(fs::absolute(options.file), ec).string();
    for (size_t at = 0; !ec && (at = keyed.find(options.file, at)) != std::string::npos; at += absolute.size())
      keyed.replace(at, options.file.size(), absolute);
  }
  uint64_t key = codegen::fnv1a(keyed);
  key = codegen::fnv1a(readFile(runtimeLocation().library), key);
  std::string command;
  for (const std::string& word : options.compiler) command += word + '\0';
  command += "-O" + options.optimization + '\0' + (options.debug ? "-g" : "") + '\0';
  for (const std::string& dir : options.includeDirs) command += "-I" + fs::absolute(dir).string() + '\0';
  for (const std::string& flag : options.cxxflags) command += flag + '\0';
  key = codegen::fnv1a(command, key);
  std::optional<fs::path> cache = cacheDirectory();
  if (!cache) return 1;
  fs::path exe = *cache / (programName(options.file) + "-" + codegen::hex64(key));
  if (!upToDate(exe)) {
    fs::path cpp = exe.string() + ".cpp";
    if (!writeNewFile(cpp, *code, 0600)) return 1;
    // Built under a temporary name and renamed, so a parallel run never sees half a file.
    fs::path partial = exe.string() + ".partial." + std::to_string(getpid());
    // Compiling takes seconds: say so on a terminal, where the wait is seen.
    const bool tell = isatty(STDERR_FILENO) || options.verbose;
    if (tell) {
      const size_t parts = splitIntoParts(*program, options.jobs).size();
      std::cerr << "flowc: compiling " << options.file << " (-O" << options.optimization;
      if (parts > 1) std::cerr << ", in " << parts << " parts at once";
      std::cerr << ")..." << std::flush;
    }
    const auto start = std::chrono::steady_clock::now();
    const int status = compile(options, *program, cpp.string(), partial.string(), {"-MMD", "-MF", partial.string() + ".d"});
    if (tell && status == 0)
      std::cerr << " " << std::fixed << std::setprecision(1)
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
    else if (tell)
      std::cerr << '\n';
    if (status != 0) return status;
    std::error_code ec;
    if (!writeNewFile(exe.string() + ".headers", headerList(partial.string() + ".d"), 0600)) return 1;
    fs::remove(partial.string() + ".d", ec);
    fs::rename(partial, exe, ec);
  }
  return exe.string();
}

int runRun(const BuildOptions& options) {
  std::variant<std::string, int> program = cachedProgram(options);
  if (const int* status = std::get_if<int>(&program)) return *status;
  const std::string exe = std::get<std::string>(program);
  std::vector<std::string> args = {exe};
  args.insert(args.end(), options.runArgs.begin(), options.runArgs.end());
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execv(argv[0], argv.data());
  std::cerr << "flowc: error: cannot run '" << exe << "'\n";
  return 1;
}

} // namespace flow::driver
