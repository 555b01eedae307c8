#pragma once
// A file the program writes at the end (--stats=FORMAT:PATH, --trace PATH). Internal to
// the runtime's program layer.
#include <cstdio>
#include <memory>
#include <string>

#include "flow/io/atomic_output.hpp"

namespace flow::detail {

// Opened before any work, so that a bad path fails now rather than after it, and written
// like the script's outputs (io::atomic_output): a file from an earlier run stays until
// this run's is complete.
class report_output {
public:
  /// Throws usage_error naming `flag` when `path` cannot be written.
  report_output(std::string flag, std::string path);
  ~report_output();
  report_output(const report_output&) = delete;
  report_output& operator=(const report_output&) = delete;

  /// Writes `text` as the whole file and puts it in place; returns the error, or "".
  std::string write(const std::string& text, const std::string& what);

private:
  std::string flag_, path_;
  std::unique_ptr<io::atomic_output> output_; // declared first: the file closes first
  std::FILE* file_ = nullptr;
};

} // namespace flow::detail
