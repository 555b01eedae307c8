#pragma once
// Code generation: a checked, planned script becomes one C++ translation unit that
// instantiates the runtime. Names in the C++ follow the script; the plan and each
// node's estimate are comments; every pipeline segment between sorts is one loop.
#include "plan/plan.hpp"
#include "sema/symbols.hpp"

#include <string>

namespace flow::codegen {

struct CodegenOptions {
  std::string programName; // for --help and error messages; the script's file name
  bool format = true;      // run clang-format's library over the result
  bool lineDirectives = false; // #line before each statement's code: a debugger shows the script
};

/// The start of a string every generated program holds ("built by flowc VERSION from
/// SCRIPT"): `flowc build -o FILE` replaces only a file that holds it.
inline constexpr const char* kBuiltByMarker = "built by flowc ";

/// The C++ for `program` under `plan`.
std::string generateCpp(const sema::CheckedProgram& program, const plan::Plan& plan, const CodegenOptions& options);

} // namespace flow::codegen
