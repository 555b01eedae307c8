// flow::io::atomic_output (flow/io/atomic_output.hpp): creating, committing and
// dropping the temporary of an output, compiled once here rather than in every program.
#include "flow/io/atomic_output.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/io/error.hpp"
#include "flow/io/temp_files.hpp"

namespace flow::io {

std::string through_links(std::string path) {
  for (int links = 0; links < 40; ++links) {
    char to[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), to, sizeof to);
    if (n < 0 || n == static_cast<ssize_t>(sizeof to)) return path;
    std::string next(to, static_cast<std::size_t>(n));
    if (next[0] != '/')
      if (const std::size_t slash = path.rfind('/'); slash != std::string::npos) next = path.substr(0, slash + 1) + next;
    path = std::move(next);
  }
  return path;
}

atomic_output::atomic_output(std::string target) : target_(std::move(target)), file_(through_links(target_)) {
  struct stat st {};
  const bool exists = ::stat(file_.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    path_ = file_; // a device or a FIFO: in place
    return;
  }
  static std::atomic<unsigned> counter{0};
  const std::size_t slash = file_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : file_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? file_ : file_.substr(slash + 1);
  name_ = dir + "." + base + ".flow-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  // The target's permissions if it exists (a rewrite keeps them), else the usual 0666
  // less the umask.
  const mode_t mode = exists ? (st.st_mode & 07777) : 0666;
  // First choice: a file with no name (O_TMPFILE) in the target's directory, named only
  // by commit(). Until then no signal, not even SIGKILL, can leave it behind. path() is
  // then its /proc/self/fd link, which opens that same file.
  fd_ = ::open(dir.empty() ? "." : dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  if (fd_ >= 0) {
    if (exists) ::fchmod(fd_, mode);
    path_ = "/proc/self/fd/" + std::to_string(fd_);
    if (::access(path_.c_str(), F_OK) == 0) {
      temporary_ = true;
      return;
    }
    ::close(fd_); // no /proc: the file cannot be reopened by a path
    fd_ = -1;
  }
  // Else (a file system without O_TMPFILE) a named temporary, removed by the
  // destructor or a signal handler; only SIGKILL can leave it.
  path_ = name_;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    const int e = errno;
    throw open_error(describe_failure("cannot create a file next to", target_, 0, 0, e, advice_for(e)), target_, 0,
                     0, e);
  }
  if (exists) ::fchmod(fd, mode);
  ::close(fd);
  temp_files::add(path_);
  named_ = true;
  temporary_ = true;
}

atomic_output::~atomic_output() {
  // Not committed: the target is untouched; the nameless file goes with its descriptor.
  if (temporary_ && named_) temp_files::remove(path_);
  if (fd_ >= 0) ::close(fd_);
}

void atomic_output::commit() {
  if (!temporary_) return;
  if (!named_) {
    if (::fsync(fd_) != 0) fail("cannot sync the new contents of", errno);
    // Give it a name next to the target (registered first: a signal in between must
    // not leave it), then rename that over the target, which is atomic.
    temp_files::add(name_);
    if (::linkat(AT_FDCWD, path_.c_str(), AT_FDCWD, name_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const int e = errno;
      temp_files::forget(name_);
      fail("cannot give a name to the new contents of", e);
    }
    named_ = true;
    ::close(fd_);
    fd_ = -1;
    path_ = name_;
  } else {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const int e = errno;
      if (fd >= 0) ::close(fd);
      fail("cannot sync the new contents of", e);
    }
    ::close(fd);
  }
  if (::rename(path_.c_str(), file_.c_str()) != 0) fail("cannot replace", errno);
  temp_files::forget(path_);
  temporary_ = false;
}

void atomic_output::fail(const char* what, int e) const {
  throw io_error(describe_failure(what, target_, 0, 0, e, advice_for(e)), target_, 0, 0, e);
}

} // namespace flow::io
