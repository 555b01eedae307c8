#pragma once
// `flowc check`: parse and check scripts, print diagnostics and, on request, the AST.
#include <cstdint>
#include <string>
#include <vector>

namespace flow::driver {

struct CheckOptions {
  bool dumpAst = false;
  bool dumpTypes = false;
  bool parseOnly = false; // stop after parsing (no names or types checked)
  std::vector<std::string> includeDirs;
  uint64_t strCapacity = 254;   // --max-str
  bool summary = false;
  bool color = false;
  /// --diagnostics-format: text on stderr, one JSON array or one SARIF 2.1.0 log on stdout.
  enum class Format { Text, Json, Sarif } format = Format::Text;
  std::vector<std::string> files;
};

/// Returns the process exit status: 0 when every file is clean, 1 otherwise.
int runCheck(const CheckOptions& options);

} // namespace flow::driver
