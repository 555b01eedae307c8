#pragma once
// Outputs that appear whole or not at all. A program's result file is written to a
// temporary file next to it (same directory, so renaming it is atomic) and renamed over
// the target only when it is complete and on disk. Until then the target keeps its old
// contents: a statement may read the file it rewrites (`v` state files of a loop), and
// an error, a full disk or a signal leaves the old file, never a partial one. The
// temporary is registered with flow::io::temp_files, so a signal removes it too.
//
//   flow::io::atomic_output out("result.bin");
//   write_everything_to(out.path());   // a temporary ".result.bin.flow-1234-0"
//   out.commit();                      // synced and renamed over result.bin
//
// A target that exists and is not a regular file (a device such as /dev/null, a FIFO)
// cannot be replaced: it is written in place, and path() is the target itself.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/io/error.hpp"
#include "flow/io/temp_files.hpp"

namespace flow::io {

class atomic_output {
public:
  explicit atomic_output(std::string target) : target_(std::move(target)) {
    struct stat st {};
    const bool exists = ::stat(target_.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      path_ = target_; // a device or a FIFO: in place
      return;
    }
    static std::atomic<unsigned> counter{0};
    const std::size_t slash = target_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
    path_ = dir + "." + base + ".flow-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    // The target's permissions if it exists (a rewrite keeps them), else the usual 0666
    // less the umask.
    const mode_t mode = exists ? (st.st_mode & 07777) : 0666;
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
      const int e = errno;
      throw open_error(describe_failure("cannot create a file next to", target_, 0, 0, e, advice_for(e)), target_, 0,
                       0, e);
    }
    if (exists) ::fchmod(fd, mode);
    ::close(fd);
    temp_files::add(path_);
    temporary_ = true;
  }
  ~atomic_output() {
    if (temporary_) temp_files::remove(path_); // not committed: the target is untouched
  }
  atomic_output(const atomic_output&) = delete;
  atomic_output& operator=(const atomic_output&) = delete;

  /// Where to write: the temporary (or the target itself, when it cannot be replaced).
  const std::string& path() const noexcept { return path_; }
  const std::string& target() const noexcept { return target_; }

  /// The output is complete and closed: syncs it and renames it over the target.
  void commit() {
    if (!temporary_) return;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const int e = errno;
      if (fd >= 0) ::close(fd);
      fail("cannot sync the new contents of", e);
    }
    ::close(fd);
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail("cannot replace", errno);
    temp_files::forget(path_);
    temporary_ = false;
  }

private:
  [[noreturn]] void fail(const char* what, int e) const {
    throw io_error(describe_failure(what, target_, 0, 0, e, advice_for(e)), target_, 0, 0, e);
  }

  std::string target_;
  std::string path_;
  bool temporary_ = false;
};

} // namespace flow::io
