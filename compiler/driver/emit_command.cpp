#include "driver/emit_command.hpp"

#include "codegen/codegen.hpp"
#include "driver/frontend.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace flow::driver {

namespace {

/// Parses, checks, plans and generates; empty on errors (already reported).
std::optional<std::string> generate(const BuildOptions& options) {
  CompiledScript script;
  DiagnosticEngine diags(std::cerr, options.color);
  FrontEndOptions frontEnd;
  frontEnd.includeDirs = options.includeDirs;
  if (!compileScript(options.file, frontEnd, diags, script)) return std::nullopt;
  std::optional<plan::Plan> plan = plan::makePlan(*script.checked, options.plan, diags);
  diags.flush();
  if (!plan) return std::nullopt;
  codegen::CodegenOptions cg;
  cg.programName = fs::path(options.file).stem().string();
  return codegen::generateCpp(*script.checked, *plan, cg);
}

uint64_t fnv1a(const std::string& data, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string compilerOf(const BuildOptions& options) {
  if (!options.cxx.empty()) return options.cxx;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) return cxx;
  return "c++";
}

/// Runs a command (argv form) and returns its exit status; its output goes to `log`.
int runCommand(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) {
      dup2(fileno(f), STDOUT_FILENO);
      dup2(fileno(f), STDERR_FILENO);
    }
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::perror(argv[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Compiles `cpp` into `exe`. A failure is flowc's fault, never the script's: a checked
/// script must compile, so it is reported as an internal error with what to report.
bool compile(const BuildOptions& options, const std::string& cpp, const std::string& exe) {
  std::vector<std::string> args = {compilerOf(options), "-std=c++20", "-O" + options.optimization, "-pthread",
                                   "-I" FLOW_RUNTIME_INCLUDE_DIR};
  fs::path scriptDir = fs::path(options.file).parent_path();
  args.push_back("-I" + (scriptDir.empty() ? std::string(".") : scriptDir.string()));
  for (const std::string& dir : options.includeDirs) args.push_back("-I" + dir);
  args.insert(args.end(), options.cxxflags.begin(), options.cxxflags.end());
  args.insert(args.end(), {cpp, FLOW_RUNTIME_LIBRARY, "-lboost_thread", "-o", exe});
  if (options.verbose) {
    for (const std::string& a : args) std::cerr << a << ' ';
    std::cerr << '\n';
  }
  std::string log = exe + ".log";
  int status = runCommand(args, log);
  if (status == 0) {
    fs::remove(log);
    return true;
  }
  std::cerr << "flowc: internal error: the generated C++ for " << options.file << " did not compile.\n"
            << "This is a bug in flowc, not in your script: please report it with the script and " << cpp
            << ".\nThe C++ compiler (" << args[0] << ") said:\n";
  std::istringstream lines(readFile(log));
  std::string line;
  for (int n = 0; n < 20 && std::getline(lines, line); ++n) std::cerr << "  " << line << '\n';
  return false;
}

/// The folder of `flowc run`'s cache: $FLOW_CACHE_DIR, else $XDG_CACHE_HOME/flow, else
/// ~/.cache/flow, else (no HOME) /tmp/flow-cache-UID. It holds executables that flowc
/// runs, so it must be the user's alone: created with mode 0700, and refused when it is
/// a symbolic link, not a folder, owned by someone else or open to others — otherwise
/// another user could plant an executable (or a symbolic link for flowc to write through).
std::optional<fs::path> cacheDirectory() {
  const char* flowCache = std::getenv("FLOW_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir = flowCache && *flowCache ? fs::path(flowCache)
                 : xdg && *xdg          ? fs::path(xdg) / "flow"
                 : home && *home        ? fs::path(home) / ".cache" / "flow"
                                        : fs::temp_directory_path() / ("flow-cache-" + std::to_string(geteuid()));
  const std::string advice = "; set FLOW_CACHE_DIR to a folder of your own";
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec); // the parents: the usual modes
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
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
  else if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    problem = std::string("others may write or read it (mode ") + mode + "; flowc wants 0700: chmod 700 it)";
  }
  if (!problem.empty()) {
    std::cerr << "flowc: error: refusing the cache folder '" << dir.string() << "': " << problem << advice << "\n";
    return std::nullopt;
  }
  return dir;
}

/// Writes `contents` to a new file `path` (replacing an older one) through a file of its
/// own created with O_EXCL|O_NOFOLLOW and renamed into place: never through a symbolic
/// link, never half-written.
bool writeNewFile(const fs::path& path, const std::string& contents) {
  const std::string partial = path.string() + ".partial." + std::to_string(getpid());
  ::unlink(partial.c_str()); // a leftover of a killed run of this pid
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (std::size_t done = 0; ok && done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int error = errno;
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (ok && ::rename(partial.c_str(), path.c_str()) == 0) return true;
  std::cerr << "flowc: error: cannot write '" << path.string() << "': " << std::strerror(ok ? errno : error) << "\n";
  ::unlink(partial.c_str());
  return false;
}

} // namespace

int runEmit(const BuildOptions& options) {
  std::optional<std::string> code = generate(options);
  if (!code) return 1;
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
  std::optional<std::string> code = generate(options);
  if (!code) return 1;
  std::string exe = options.output.empty() ? fs::path(options.file).stem().string() : options.output;
  std::string cpp = exe + ".cpp";
  {
    std::ofstream out(cpp);
    out << *code;
    if (!out) {
      std::cerr << "flowc: error: cannot write '" << cpp << "'\n";
      return 1;
    }
  }
  return compile(options, cpp, exe) ? 0 : 3;
}

int runRun(const BuildOptions& options) {
  std::optional<std::string> code = generate(options);
  if (!code) return 1;
  // Built once per content: the generated C++, the runtime library and the compiler
  // command (compiler, level, include directories, extra flags; each ends in a NUL so
  // that no two lists of flags hash alike).
  uint64_t key = fnv1a(*code);
  key = fnv1a(readFile(FLOW_RUNTIME_LIBRARY), key);
  std::string command = compilerOf(options) + '\0' + "-O" + options.optimization + '\0';
  for (const std::string& dir : options.includeDirs) command += "-I" + dir + '\0';
  for (const std::string& flag : options.cxxflags) command += flag + '\0';
  key = fnv1a(command, key);
  std::optional<fs::path> cache = cacheDirectory();
  if (!cache) return 1;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  fs::path exe = *cache / (fs::path(options.file).stem().string() + "-" + hex);
  if (!fs::exists(exe)) {
    fs::path cpp = exe.string() + ".cpp";
    if (!writeNewFile(cpp, *code)) return 1;
    // Built under a temporary name and renamed, so a parallel run never sees half a file.
    fs::path partial = exe.string() + ".partial." + std::to_string(getpid());
    if (!compile(options, cpp.string(), partial.string())) return 3;
    std::error_code ec;
    fs::rename(partial, exe, ec);
  }
  std::vector<std::string> args = {exe.string()};
  args.insert(args.end(), options.runArgs.begin(), options.runArgs.end());
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execv(argv[0], argv.data());
  std::cerr << "flowc: error: cannot run '" << exe.string() << "'\n";
  return 1;
}

} // namespace flow::driver
