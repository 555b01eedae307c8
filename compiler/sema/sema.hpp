#pragma once
// Semantic analysis: the entry point. Turns a parsed script into a checked one, or
// reports why it cannot be (every name resolved, every expression typed, every misuse a
// Flow diagnostic at the script's line), so a script it accepts compiles as C++.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "sema/symbols.hpp"
#include "sema/types.hpp"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace flow::sema {

struct SemaOptions {
  std::vector<std::string> includeDirs; // for `import`, after the script's own directory
  std::string cppStandard = "c++20";
  uint64_t strCapacity = TypeContext::kDefaultStrCapacity; // flowc --max-str
};

/// Checks `program`; returns the checked program, or null if there were errors (which
/// are reported to `diags`).
std::unique_ptr<CheckedProgram> analyze(ast::Program& program, DiagnosticEngine& diags,
                                        const SemaOptions& options = {});

/// `flowc check --dump-types`: every record with its size, alignment and field offsets,
/// every order with its keys and sentinels, every declaration with its type, and every
/// stream with its stages' types and its consumers.
void dumpTypes(const CheckedProgram& program, std::ostream& out);

} // namespace flow::sema
