#pragma once
// `flowc fmt`: scripts rewritten in their canonical layout (format/formatter.hpp), in
// place, to standard output (`-`), or only checked (--check, for CI).
#include <string>
#include <vector>

namespace flow::driver {

struct FmtOptions {
  std::vector<std::string> files; // "-": standard input to standard output
  bool check = false;             // --check: change nothing; list the files that would change
  bool color = false;
};

/// Returns the process exit status: 0 when every file is (or now is) formatted; 1 when
/// one does not parse, cannot be written, or (--check) is not formatted.
int runFmt(const FmtOptions& options);

} // namespace flow::driver
