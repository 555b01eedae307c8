#pragma once
// The front end every command shares: read a script, parse it, check it.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "sema/sema.hpp"

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace flow::driver {

struct FrontEndOptions {
  std::vector<std::string> includeDirs; // -I
  uint64_t strCapacity = sema::TypeContext::kDefaultStrCapacity; // --max-str
  bool parseOnly = false;
};

/// A script read, parsed and checked. `file` must outlive the diagnostics that point into it.
struct CompiledScript {
  std::unique_ptr<SourceFile> file;
  std::unique_ptr<ast::Program> program;
  std::unique_ptr<sema::CheckedProgram> checked; // null with parseOnly or after errors
};

/// Reads, parses and (unless parseOnly) checks `path`. Errors go to `diags`; returns false
/// if the script cannot be used (unreadable, syntax or semantic errors).
bool compileScript(const std::string& path, const FrontEndOptions& options, DiagnosticEngine& diags,
                   CompiledScript& out);

/// A bad command line found once the script is known (--set of a param it does not
/// have): "flowc: error: …", exit status 2, as the command line parser's own errors.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws UsageError unless every `--set NAME=…` names a param of the script, saying the
/// nearest name and the params there are.
void checkSetParams(const sema::CheckedProgram& program, const std::map<std::string, std::string>& setParams);

/// The stack flowc's work runs on (see runOnLargeStack).
inline constexpr std::size_t kFrontEndStackBytes = std::size_t{1} << 30;

/// Runs `body` on a thread whose stack reserves kFrontEndStackBytes (pages never touched
/// cost nothing) and returns its result. The nesting limit keeps the AST shallow; this is
/// the defence in depth under it, so no pass that recurses over the tree (parse, sema,
/// plan, codegen) can run out of stack on whatever the limits let through. Falls back to
/// smaller stacks, then to the calling thread, if the system refuses the reservation.
int runOnLargeStack(const std::function<int()>& body);

/// `256MiB`, `256 MiB`, `1.5 GiB`, `1048576` → bytes; nullopt (and `error`) otherwise.
std::optional<uint64_t> parseSizeArgument(const std::string& text, std::string& error);

} // namespace flow::driver
