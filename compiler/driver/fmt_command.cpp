#include "driver/fmt_command.hpp"

#include "ast/diagnostics.hpp"
#include "driver/files.hpp"
#include "format/formatter.hpp"

#include <filesystem>
#include <iostream>

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace flow::driver {

namespace {

/// Formats one file: 0, or 1 after saying why not (or, with --check, that it would change).
int formatFile(const std::string& path, const FmtOptions& options) {
  SourceFile file("", "");
  std::string error;
  if (!SourceFile::load(path, file, error)) {
    std::cerr << "flowc: error: " << error << "\n";
    return 1;
  }
  DiagnosticEngine diags(std::cerr, options.color);
  const std::optional<std::string> text = format::formatScript(file, diags);
  diags.flush();
  if (!text) {
    std::cerr << "flowc fmt: " << (path == "-" ? "<stdin>" : path) << " not formatted: it has syntax errors\n";
    return 1;
  }
  const bool changed = *text != file.text();
  if (options.check) {
    if (changed) std::cout << (path == "-" ? "<stdin>" : path) << "\n";
    return changed ? 1 : 0;
  }
  if (path == "-") {
    std::cout << *text;
    return 0;
  }
  if (!changed) return 0; // leave the file, and its time stamp, alone
  // Through a symbolic link to the file it names (as sed -i --follow-symlinks, and as an
  // editor saves), with the file's own permissions.
  std::error_code ec;
  const fs::path target = fs::canonical(path, ec);
  struct stat st {};
  if (ec || ::stat(target.c_str(), &st) != 0) {
    std::cerr << "flowc: error: cannot write '" << path << "': " << (ec ? ec.message() : "cannot stat it") << "\n";
    return 1;
  }
  if (!writeNewFile(target, *text, st.st_mode & 07777)) return 1;
  ::chmod(target.c_str(), st.st_mode & 07777); // the mode as it was, whatever the umask
  return 0;
}

} // namespace

int runFmt(const FmtOptions& options) {
  int status = 0;
  for (const std::string& path : options.files) status = std::max(status, formatFile(path, options));
  std::cout.flush();
  return status;
}

} // namespace flow::driver
