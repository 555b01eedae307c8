#pragma once
// The front end every command shares: read a script, parse it, check it.
#include "ast/ast.hpp"
#include "ast/diagnostics.hpp"
#include "sema/sema.hpp"

#include <memory>
#include <string>
#include <vector>

namespace flow::driver {

struct FrontEndOptions {
  std::vector<std::string> includeDirs; // -I
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

/// `256MiB`, `256 MiB`, `1.5 GiB`, `1048576` → bytes; nullopt (and `error`) otherwise.
std::optional<uint64_t> parseSizeArgument(const std::string& text, std::string& error);

} // namespace flow::driver
