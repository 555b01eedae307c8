#include "driver/frontend.hpp"

#include "parse/literals.hpp"
#include "parse/parser.hpp"

namespace flow::driver {

bool compileScript(const std::string& path, const FrontEndOptions& options, DiagnosticEngine& diags,
                   CompiledScript& out) {
  out.file = std::make_unique<SourceFile>("", "");
  std::string error;
  if (!SourceFile::load(path, *out.file, error)) {
    diags.error(nullptr, {}, error);
    return false;
  }
  out.program = parse::parseProgram(*out.file, diags);
  if (!out.program || diags.hasErrors()) return false;
  if (options.parseOnly) return true;
  sema::SemaOptions sema;
  sema.includeDirs = options.includeDirs;
  out.checked = sema::analyze(*out.program, diags, sema);
  return out.checked != nullptr;
}

std::optional<uint64_t> parseSizeArgument(const std::string& text, std::string& error) {
  std::string number, unit;
  parse::splitSize(text, number, unit);
  if (number.empty() || number.size() + (unit.empty() ? 0 : 0) == 0) {
    error = "'" + text + "' is not a size (write e.g. 256MiB or 1GiB)";
    return std::nullopt;
  }
  auto bytes = parse::parseSize(number, unit.empty() ? "B" : unit, error);
  if (!bytes) error = "'" + text + "' is not a size: " + error;
  return bytes;
}

} // namespace flow::driver
