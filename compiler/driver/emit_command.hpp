#pragma once
// `flowc emit`, `flowc build` and `flowc run`: the generated C++, the executable built
// from it with the host C++ compiler, and running it (built into a cache keyed by the
// script's and the runtime's content).
#include "plan/plan.hpp"

#include <string>
#include <variant>
#include <vector>

namespace flow::driver {

struct BuildOptions {
  std::string file;
  std::string output;                   // -o
  std::string depfile;                  // --depfile (emit): the make rule of the inputs
  std::vector<std::string> compiler = {"c++"}; // --cxx, else $CXX, else c++: split into words
  std::string optimization = "2";       // -O
  bool debug = false;                   // -g
  std::vector<std::string> cxxflags;    // $CXXFLAGS, then --cxxflag
  std::vector<std::string> includeDirs; // -I, for imported headers
  uint64_t strCapacity = 254;           // --max-str: the most bytes a str holds
  plan::PlanOptions plan;               // --set and --memory feed the plan's comments and sizes
  std::vector<std::string> runArgs;     // after `--`, for `run`
  bool color = false;
  bool verbose = false;                 // print the compiler command
  unsigned jobs = 1;                    // -j: compilers at once (a program in parts, emit_command.cpp)
  /// --calibrate: run the program at a small scale first (as explain --calibrate does)
  /// and build in a second estimate with what it measured, which --stats shows.
  bool calibrate = false;
};

int runEmit(const BuildOptions& options);
/// `flowc cache precompile`: the precompiled runtime for builds with `options`' compiler
/// and flags made in the cache (if no build has made it): flowc's exit status.
int runPrecompile(const BuildOptions& options);
int runBuild(const BuildOptions& options);
int runRun(const BuildOptions& options);

/// `flowc run`'s program for `options`, built into the cache unless it is up to date
/// there: the executable's path, or (after reporting why) the exit status for flowc.
std::variant<std::string, int> cachedProgram(const BuildOptions& options);
/// Runs `args` in `directory` with standard output and error going to the file `log`:
/// the exit status (128 + signal if killed), or -1 after reporting that it could not run.
int runLogged(const std::vector<std::string>& args, const std::string& log, const std::string& directory);

} // namespace flow::driver
