#include "driver/emit_command.hpp"

#include "codegen/codegen.hpp"
#include "driver/cache.hpp"
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
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
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
  cg.mpi = options.plan.spreadOverRanks;
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

/// The flags of each compile of a program: the compiler, the options of the runtime
/// (and its precompiled headers), -g, $CXXFLAGS and --cxxflag; with `includeDirs`, the
/// script's folder and -I's before the extra flags (for main(), which may include the
/// script's C++ headers; a class compiled apart needs none, so its object serves scripts
/// anywhere).
std::vector<std::string> compileFlags(const BuildOptions& options, bool includeDirs) {
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
  if (includeDirs) {
    fs::path scriptDir = fs::path(options.file).parent_path();
    args.push_back("-I" + (scriptDir.empty() ? std::string(".") : scriptDir.string()));
    for (const std::string& dir : options.includeDirs) args.push_back("-I" + dir);
  }
  args.insert(args.end(), options.cxxflags.begin(), options.cxxflags.end());
  return args;
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

/// Open MPI's flags for a program built with --mpi: `mpicxx --showme:compile` (mpi.h's
/// folders) or `--showme:link` (its libraries), as words; nullopt (after saying why) when
/// there is no mpicxx.
std::optional<std::vector<std::string>> mpiFlags(const std::string& which) {
  std::string text;
  if (FILE* pipe = ::popen(("mpicxx --showme:" + which + " 2>/dev/null").c_str(), "r")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    if (::pclose(pipe) != 0) text.clear();
  }
  std::istringstream words(text);
  std::vector<std::string> flags;
  for (std::string w; words >> w;)
    if (w != "-lmpi_cxx") flags.push_back(w); // MPI's C++ bindings: the runtime calls the C API
  if (flags.empty()) {
    std::cerr << "flowc: error: --mpi needs Open MPI's compiler wrapper mpicxx on PATH (Debian: apt-get install "
                 "openmpi-bin libopenmpi-dev)\n";
    return std::nullopt;
  }
  return flags;
}

/// What ends the command that makes the executable `exe`: the runtime's library (and
/// Open MPI's, `mpi`).
std::vector<std::string> linkTail(const std::string& exe, const std::vector<std::string>& mpi) {
  std::vector<std::string> tail = {runtimeLocation().library, "-lboost_thread"};
  tail.insert(tail.end(), mpi.begin(), mpi.end());
  tail.insert(tail.end(), {"-o", exe});
  return tail;
}

/// How a program is compiled: the compiler commands (run up to options.jobs at once,
/// the most costly first), then the link of `objects`.
struct CompilePlan {
  std::vector<Command> compiles;
  std::vector<double> costs;       // of each compile, to start the longest first
  std::vector<std::string> cpps;   // the C++ file each compiles (for its errors)
  std::vector<std::string> objects; // linked, in this order (none: one compile makes the program)
  size_t programObjects = 0;         // the first objects: the program's file's (main(), fl_run)
  // A compiled group of classes: the cache's names of its classes' objects (links to it)
  // and the file names of the objects it needs (its classes' calls of other groups').
  struct Store {
    std::string partial; // the compile's output, without .o
    std::vector<std::string> objects;
    std::vector<std::string> needs;
  };
  std::vector<Store> stores;
  std::vector<std::pair<std::string, std::string>> sources; // C++ files to write, and their text
  size_t classesReused = 0;        // classes whose objects the cache had
  std::vector<std::string> mpiLink; // Open MPI's libraries (--mpi)
};

/// The compiles of `program` (written to `cpp`) into `exe`. A program with runtime classes
/// of its types is built in parts when flowc's cache can be used: each class's object is
/// kept in the cache under the key of its own translation unit (driver/cache.hpp), shared
/// by every script with the same types, so that an edit of a script compiles the script's
/// file alone. That file's main() (the plan, the params) and fl_run (the script's
/// statements) are compiled apart, at once, where a job would otherwise be idle (-j N with
/// fewer than N - 1 units of classes to compile), unless the script includes C++ headers
/// (which may define non-inline functions that only one unit may compile). Otherwise the
/// program is one compile. `extra` goes to main()'s compile (flowc run's dependency file),
/// `mpiCompile` (Open MPI's folders) to every compile of the script's file, `mpiLink`
/// (Open MPI's libraries) to the link.
CompilePlan planCompiles(const BuildOptions& options, const codegen::GeneratedCpp& program, const std::string& cpp,
                         const std::string& exe, const std::vector<std::string>& extra,
                         const std::vector<std::string>& mpiCompile, const std::vector<std::string>& mpiLink) {
  CompilePlan plan;
  plan.mpiLink = mpiLink;
  const std::optional<fs::path> cache =
      program.partClasses.empty() ? std::nullopt : cacheDirectory(/*quiet=*/!options.verbose);
  std::error_code ec;
  if (cache) fs::create_directory(*cache / "parts", ec);
  const bool inParts = cache && !ec;
  // Each class's object is keyed by its own translation unit; the classes the cache lacks
  // are compiled in groups (one more translation unit costs a load of the precompiled
  // runtime and the types again; the script's file, shorter than most groups, takes the
  // first job free), and each class's object in the cache is then a link to its group's.
  // A cached object comes with the objects its group needs; the groups compiled now are
  // linked from their own outputs.
  std::vector<std::string> classObjects;
  std::map<std::string, std::string> objectOf; // class name -> its object in the cache
  struct Missing {
    const codegen::PartClass* cls;
    std::string object;
  };
  std::vector<Missing> missing;
  const std::vector<std::string> classFlags = inParts ? compileFlags(options, /*includeDirs=*/false) : std::vector<std::string>{};
  for (const codegen::PartClass& c : program.partClasses) {
    if (!inParts) break;
    const std::string source = program.partSource({&c});
    const fs::path object = partObject(*cache, source, classFlags, runtimeLocation().includeDir);
    objectOf[c.name] = object.filename().string();
    std::optional<std::vector<fs::path>> needs;
    if (fs::exists(object, ec) && (needs = neededObjects(object))) {
      classObjects.push_back(object.string());
      markUsed(object);
      for (const fs::path& n : *needs) {
        markUsed(n);
        classObjects.push_back(n.string());
      }
      ++plan.classesReused;
      if (options.verbose) std::cerr << "flowc: " << c.name << ": compiled before, " << object.string() << "\n";
      continue;
    }
    plan.sources.push_back({fs::path(object).replace_extension(".cpp").string(), source}); // for people
    missing.push_back({&c, object.string()});
  }
  std::stable_sort(missing.begin(), missing.end(), [](const Missing& a, const Missing& b) { return a.cls->cost > b.cls->cost; });
  // Classes share an object only where their units hold the same type definitions, so
  // that each one's key covers every definition the object's code depends on: another
  // script may define a record of the same name differently, and a link of both scripts'
  // code for it takes one of the two (a sort of the other layout crashed). Those with the
  // same types (but for the orders of scalars, the same in every script) are compiled
  // together, split further while a job would be idle.
  std::map<std::vector<size_t>, std::vector<const Missing*>> byTypes;
  for (const Missing& m : missing) {
    std::vector<size_t> types = program.typeBlocksOf({m.cls});
    std::erase_if(types, [&](size_t b) { return program.sameInEveryScript(b); });
    byTypes[types].push_back(&m);
  }
  std::vector<std::vector<const Missing*>> group;
  for (auto& [types, members] : byTypes) group.push_back(std::move(members));
  auto workOf = [](const std::vector<const Missing*>& g) {
    double w = 0;
    for (const Missing* m : g) w += m->cls->cost;
    return w;
  };
  while (group.size() < options.jobs) { // the costliest group of two or more in halves
    auto split = group.end();
    for (auto g = group.begin(); g != group.end(); ++g)
      if (g->size() > 1 && (split == group.end() || workOf(*g) > workOf(*split))) split = g;
    if (split == group.end()) break;
    std::vector<const Missing*> halves[2];
    double work[2] = {0, 0};
    for (const Missing* m : *split) { // the most costly first, to the half with less work
      const int h = work[1] < work[0] ? 1 : 0;
      halves[h].push_back(m);
      work[h] += m->cls->cost;
    }
    *split = std::move(halves[0]);
    group.push_back(std::move(halves[1]));
  }
  const size_t groups = group.size();
  const bool runApart = program.runApart && groups + 2 <= options.jobs;
  const std::vector<std::string> programArgs = compileFlags(options, /*includeDirs=*/true);
  if (!inParts && !runApart) {
    std::vector<std::string> args = programArgs;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), mpiCompile.begin(), mpiCompile.end());
    args.push_back(cpp);
    const std::vector<std::string> tail = linkTail(exe, mpiLink);
    args.insert(args.end(), tail.begin(), tail.end());
    plan.compiles.push_back({args, exe + ".log", ""});
    plan.costs.push_back(program.mainCost + program.runCost);
    plan.cpps.push_back(cpp);
    return plan;
  }
  // The script's file: one object, or main()'s and fl_run's.
  struct Unit {
    const char* define; // the part of the file it compiles
    const char* suffix;
    double cost;
  };
  std::vector<Unit> units = {{nullptr, ".main.o", program.mainCost + program.runCost}};
  if (runApart) units = {{"-DFLOW_ONLY_MAIN", ".main.o", program.mainCost}, {"-DFLOW_ONLY_RUN", ".run.o", program.runCost}};
  for (const Unit& unit : units) {
    const std::string object = exe + unit.suffix;
    std::vector<std::string> args = programArgs;
    if (inParts) args.push_back("-DFLOW_PARTS");
    if (unit.define) args.push_back(unit.define);
    if (&unit == &units.front()) args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), mpiCompile.begin(), mpiCompile.end());
    args.insert(args.end(), {"-c", cpp, "-o", object});
    plan.compiles.push_back({args, object + ".log", ""});
    plan.costs.push_back(unit.cost);
    plan.cpps.push_back(cpp);
    plan.objects.push_back(object);
  }
  plan.programObjects = units.size();
  plan.objects.insert(plan.objects.end(), classObjects.begin(), classObjects.end());
  for (size_t k = 0; k < groups; ++k) {
    std::vector<const codegen::PartClass*> classes;
    std::vector<std::string> objects;
    std::set<std::string> names;
    for (const Missing* m : group[k]) {
      classes.push_back(m->cls);
      objects.push_back(m->object);
      names.insert(m->cls->name);
    }
    std::set<std::string> needs; // the objects of the classes it calls that other units compile
    for (const codegen::PartClass* c : classes)
      for (const std::string& used : c->uses)
        if (!names.count(used) && objectOf.count(used)) needs.insert(objectOf.at(used));
    const std::string source = program.partSource(classes);
    // In the cache's folder, so that its classes' objects can be links to it.
    const std::string partial = objects.front() + ".group.partial." + std::to_string(getpid());
    plan.sources.push_back({partial + ".cpp", source});
    std::vector<std::string> args = classFlags;
    args.insert(args.end(), {"-c", partial + ".cpp", "-o", partial + ".o"});
    plan.compiles.push_back({args, partial + ".log", ""});
    plan.costs.push_back(workOf(group[k]));
    plan.cpps.push_back(partial + ".cpp");
    plan.stores.push_back({partial, objects, {needs.begin(), needs.end()}});
    // Linked as compiled, not from the cache: another build may have stored its own
    // group's object for one of these classes meanwhile, which that one stays.
    plan.objects.push_back(partial + ".o");
  }
  return plan;
}

/// Compiles `program` (written to `cpp`) into `exe` as planCompiles says, then links it.
/// 0, or flowc's exit status (compilerFailed).
int compile(const BuildOptions& options, const codegen::GeneratedCpp& program, const std::string& cpp,
            const std::string& exe, const std::vector<std::string>& extra = {},
            const std::function<void(const CompilePlan&)>& starting = {}) {
  // From before it looks for compiled classes in the cache until it has linked them.
  std::optional<CacheHold> hold;
  if (std::optional<fs::path> cache = cacheDirectory(/*quiet=*/true)) hold.emplace(*cache);
  // main() of a program built with --mpi includes mpi.h and links Open MPI's library.
  std::vector<std::string> mpiCompile, mpiLink;
  if (options.plan.spreadOverRanks) {
    const auto compileFlags = mpiFlags("compile"), linkFlags = mpiFlags("link");
    if (!compileFlags || !linkFlags) return 1;
    mpiCompile = *compileFlags;
    mpiLink = *linkFlags;
  }
  CompilePlan plan = planCompiles(options, program, cpp, exe, extra, mpiCompile, mpiLink);
  if (starting) starting(plan);
  // A class's source is written where its object will be, for its errors and for people.
  for (const auto& [path, text] : plan.sources)
    if (!writeNewFile(path, text, 0600)) return 1;
  // The longest compiles first, so that the last to finish is short.
  std::vector<size_t> order(plan.compiles.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return plan.costs[a] > plan.costs[b]; });
  std::vector<Command> compiles;
  for (size_t i : order) compiles.push_back(plan.compiles[i]);
  // Each step's commands run (printed with -v), the first failure reported, and every
  // temporary object and log removed at the end, whatever happened.
  std::vector<std::string> leftovers;
  for (size_t k = 0; k < plan.programObjects; ++k) leftovers.push_back(plan.objects[k]); // linked, then not needed
  for (const CompilePlan::Store& store : plan.stores)
    for (const char* suffix : {".cpp", ".o"}) leftovers.push_back(store.partial + suffix);
  auto runStep = [&](const std::vector<Command>& step, const std::vector<size_t>& which) {
    for (const Command& c : step) {
      leftovers.push_back(c.log);
      if (!options.verbose) continue;
      for (const std::string& a : c.args) std::cerr << a << ' ';
      std::cerr << '\n';
    }
    const std::vector<CommandResult> results = runCommands(step, std::max(1u, options.jobs));
    for (size_t i = 0; i < step.size(); ++i)
      if (results[i].status != 0 || results[i].execError != 0)
        return compilerFailed(options, step[i].args, results[i], step[i].log, which.empty() ? cpp : plan.cpps[which[i]]);
    return 0;
  };
  int status = runStep(compiles, order);
  std::error_code ec;
  // Compiled classes go into the cache whole, for this link and later builds.
  for (const CompilePlan::Store& store : plan.stores)
    for (const std::string& object : store.objects)
      if (status == 0) storePartObject(store.partial + ".o", object, store.needs);
  if (status == 0 && !plan.objects.empty()) {
    std::vector<std::string> link = options.compiler;
    link.push_back("-pthread");
    link.insert(link.end(), options.cxxflags.begin(), options.cxxflags.end());
    // A group's object is linked once, however many of its classes the program has.
    std::set<std::pair<dev_t, ino_t>> linked;
    for (const std::string& object : plan.objects) {
      struct stat st {};
      if (::stat(object.c_str(), &st) == 0 && !linked.insert({st.st_dev, st.st_ino}).second) continue;
      link.push_back(object);
    }
    const std::vector<std::string> tail = linkTail(exe, plan.mpiLink);
    link.insert(link.end(), tail.begin(), tail.end());
    status = runStep({{link, exe + ".log", ""}}, {});
  }
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

int runPrecompile(const BuildOptions& options) {
  const std::vector<std::string> flags = compileFlags(options, /*includeDirs=*/false);
  const auto include = std::find(flags.begin(), flags.end(), "-include"); // the header, once made
  if (include == flags.end() || include + 1 == flags.end()) {
    std::cerr << "flowc: error: the runtime's headers could not be precompiled (said above)\n";
    return 1;
  }
  std::cout << "flowc: the precompiled runtime for builds with " << options.compiler.front() << " -O"
            << options.optimization << ": " << *(include + 1) << ".gch\n";
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
  const int status = compile(options, *program, cpp, exe);
  if (status == 0)
    if (std::optional<fs::path> cache = cacheDirectory(/*quiet=*/true)) trimCache(*cache, {});
  return status;
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
  if (upToDate(exe)) {
    markUsed(exe);
  } else {
    fs::path cpp = exe.string() + ".cpp";
    if (!writeNewFile(cpp, *code, 0600)) return 1;
    // Built under a temporary name and renamed, so a parallel run never sees half a file.
    fs::path partial = exe.string() + ".partial." + std::to_string(getpid());
    // Compiling takes seconds: say so on a terminal, where the wait is seen.
    const bool tell = isatty(STDERR_FILENO) || options.verbose;
    auto starting = [&](const CompilePlan& plan) {
      if (!tell) return;
      std::cerr << "flowc: compiling " << options.file << " (-O" << options.optimization;
      const size_t classes = program->partClasses.size();
      if (!plan.objects.empty())
        std::cerr << "; " << plan.classesReused << " of " << classes << " runtime class" << (classes == 1 ? "" : "es")
                  << " compiled before";
      std::cerr << ")..." << std::flush;
    };
    const auto start = std::chrono::steady_clock::now();
    const int status =
        compile(options, *program, cpp.string(), partial.string(), {"-MMD", "-MF", partial.string() + ".d"}, starting);
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
    trimCache(*cache, exe);
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
