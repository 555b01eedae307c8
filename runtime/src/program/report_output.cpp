// The files --stats=FORMAT:PATH and --trace PATH write (report_output.hpp).
#include "report_output.hpp"

#include <cerrno>

#include "flow/io/error.hpp"
#include "flow/program/flags.hpp"
#include "messages.hpp"

namespace flow::detail {

report_output::report_output(std::string flag, std::string path) : flag_(std::move(flag)), path_(std::move(path)) {
  try {
    output_ = std::make_unique<io::atomic_output>(path_);
  } catch (const io_error& e) {
    throw usage_error(flag_, flag_ + ": cannot write '" + path_ + "': " + errno_text(e.error_number()));
  }
  file_ = std::fopen(output_->path().c_str(), "w");
  if (!file_) throw usage_error(flag_, flag_ + ": cannot write '" + path_ + "': " + errno_text(errno));
}

report_output::~report_output() {
  if (file_) std::fclose(file_);
}

std::string report_output::write(const std::string& text, const std::string& what) {
  std::fwrite(text.data(), 1, text.size(), file_);
  const bool bad = std::fflush(file_) != 0 || std::ferror(file_);
  const int e = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (bad) return "cannot write " + what + " to '" + path_ + "': " + errno_text(e);
  try {
    output_->commit();
  } catch (const io_error& err) {
    return err.what();
  }
  return "";
}

} // namespace flow::detail
