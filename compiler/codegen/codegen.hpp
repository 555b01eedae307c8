#pragma once
// Code generation: a checked, planned script becomes one C++ translation unit that
// instantiates the runtime. Names in the C++ follow the script; the plan and each
// node's estimate are comments; every pipeline segment between sorts is one loop.
#include "plan/plan.hpp"
#include "sema/symbols.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace flow::codegen {

struct CodegenOptions {
  std::string programName; // for --help and error messages; the script's file name
  bool format = true;      // run clang-format's library over the result
  bool lineDirectives = false; // #line before each statement's code: a debugger shows the script
  bool mpi = false;        // flowc build --mpi: main() starts Open MPI's ranks (flow/ranks/mpi.hpp)
  /// flowc build --calibrate: the plan with a calibration run's fractions (same nodes),
  /// priced again at run time beside the static estimate (--stats shows both), and which
  /// run measured them ("a run at edges=1048576").
  /// The params `--set` gave (flowc emit/build/run --set NAME=VALUE): their values, as
  /// the plan has them, become the program's defaults.
  std::set<std::string> setParams;
  const plan::Plan* calibrated = nullptr;
  std::string calibratedBy;
};

/// The start of a string every generated program holds ("built by flowc VERSION from
/// SCRIPT"): `flowc build -o FILE` replaces only a file that holds it.
inline constexpr const char* kBuiltByMarker = "built by flowc ";

/// FNV-1a of `data`, continuing from `hash`: the script's hash in a program's --version
/// and `flowc run`'s cache key.
inline uint64_t fnv1a(std::string_view data, uint64_t hash = 0xcbf29ce484222325ULL) {
  for (unsigned char c : data) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}
/// A hash as 16 hexadecimal digits.
inline std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

/// Every runtime header a generated program may include, in the order it includes them
/// (a program includes all but those of node kinds it lacks, NodeCodegen::headers).
/// flowc precompiles them all once per compiler command (driver/precompiled_header.cpp).
const std::vector<std::string>& runtimeHeaders();

/// A runtime class the program instantiates (a sorter's run creator or merger, a
/// priority queue, an external vector of one element type) that flowc build compiles
/// apart from main(): `GeneratedCpp::partSource` (every runtime header, the script's
/// types that its name mentions and those they use, then `instantiation`: `template
/// class …;`, after `extern template` of the classes it uses that are compiled apart
/// too) is its translation unit. The generated C++ declares it `extern template` when
/// compiled with -DFLOW_PARTS, and flowc keeps the object of each such unit in its cache,
/// shared by every script whose types make the same one (driver/cache.hpp): any script
/// that sorts u64s ascending, say, whatever its other types.
struct PartClass {
  std::string name;          // e.g. flow::algo::runs_creator<t_Edge, t_src_dst>
  std::vector<std::string> uses; // classes compiled apart that its code calls
  double cost = 0;           // its compile time: seconds of gcc 12 -O2 (codegen/generator.hpp)

  /// Its lines after the prelude when compiled with the classes `together` (their
  /// instantiations are in the same unit, so none of them is declared extern).
  std::string instantiation(const std::vector<std::string>& together = {}) const {
    std::string text;
    for (const std::string& u : uses)
      if (std::find(together.begin(), together.end(), u) == together.end()) text += "extern template class " + u + ";\n";
    return text + "template class " + name + ";\n";
  }
};

struct GeneratedCpp {
  std::string code;
  /// The classes that may be compiled apart (empty when the script imports C++
  /// headers, which may define non-inline functions that only one part may compile).
  std::vector<PartClass> partClasses;
  std::string partPrelude; // what every class's translation unit starts with: the headers
  /// The script's type definitions (a record, an order, str, a record's text or CSV
  /// fields), each with the names it defines, in the order they are emitted.
  struct TypeBlock {
    std::string text;
    std::vector<std::string> defines;
  };
  std::vector<TypeBlock> partTypes;
  /// The translation unit of `classes` compiled together: the prelude, the type blocks
  /// their names (and the blocks picked) mention, their instantiations.
  std::string partSource(const std::vector<const PartClass*>& classes) const;
  /// The indices in partTypes of the blocks that unit holds. An object may hold several
  /// classes only where this is the same for each: its key (one class's unit) then covers
  /// every type definition the object's code depends on.
  std::vector<size_t> typeBlocksOf(const std::vector<const PartClass*>& classes) const;
  /// Whether block b is the same in every script flowc makes: an ascending or descending
  /// order of a scalar type (`fl_asc_u32`), which names no other block.
  bool sameInEveryScript(size_t b) const;
  double mainCost = 0; // the compile time of main() (the plan, the params), likewise
  double runCost = 0;  // of fl_run (the script's statements) and what only it can name
  /// Whether main() and fl_run may be compiled apart (-DFLOW_ONLY_MAIN, -DFLOW_ONLY_RUN):
  /// not when the script includes C++ headers, which both would include.
  bool runApart = true;
};

/// The C++ for `program` under `plan`.
GeneratedCpp generateCpp(const sema::CheckedProgram& program, const plan::Plan& plan, const CodegenOptions& options);

} // namespace flow::codegen
