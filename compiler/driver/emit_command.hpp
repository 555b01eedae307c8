#pragma once
// `flowc emit`, `flowc build` and `flowc run`: the generated C++, the executable built
// from it with the host C++ compiler, and running it (built into a cache keyed by the
// script's and the runtime's content).
#include "plan/plan.hpp"

#include <string>
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
  plan::PlanOptions plan;               // --set and --memory feed the plan's comments and sizes
  std::vector<std::string> runArgs;     // after `--`, for `run`
  bool color = false;
  bool verbose = false;                 // print the compiler command
};

int runEmit(const BuildOptions& options);
int runBuild(const BuildOptions& options);
int runRun(const BuildOptions& options);

} // namespace flow::driver
