// posix_file: pread/pwrite loops, O_DIRECT with buffered fallback, errno -> io_error.
#include "flow/io/posix_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "flow/io/error.hpp"

namespace flow::io {

bool warn_direct_refused(const std::string& path, int error_number) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return false;
  std::fprintf(stderr,
               "flow: warning: the file system of '%s' refuses O_DIRECT (%s); continuing with "
               "buffered I/O (this warning is shown once)\n",
               path.c_str(), std::strerror(error_number));
  return true;
}

namespace {
int flags_of(unsigned mode) {
  int flags = O_CLOEXEC;
  const bool r = mode & open_mode::read, w = mode & open_mode::write;
  flags |= (r && w) ? O_RDWR : (w ? O_WRONLY : O_RDONLY);
  if (mode & open_mode::create) flags |= O_CREAT;
  if (mode & open_mode::truncate) flags |= O_TRUNC;
  if (mode & open_mode::exclusive) flags |= O_EXCL;
  return flags;
}
} // namespace

posix_file::posix_file(const std::string& path, unsigned mode,
                       std::shared_ptr<request_queue> queue, std::string name)
    : file(name.empty() ? path : std::move(name), std::move(queue)) {
  int flags = flags_of(mode);
  if (mode & open_mode::direct) {
    fd_ = ::open(path.c_str(), flags | O_DIRECT, 0600);
    if (fd_ >= 0) {
      direct_ = true;
    } else if (errno == EINVAL) {
      warn_direct_refused(this->path(), errno); // e.g. tmpfs on older kernels
      // Linux creates the file before it checks O_DIRECT: the retry must not insist on
      // creating it again.
      flags &= ~O_EXCL;
    } else {
      const int e = errno;
      throw open_error(describe_failure("cannot open", this->path(), 0, 0, e, advice_for(e)), this->path(), 0, 0,
                       e);
    }
  }
  if (fd_ < 0) {
    fd_ = ::open(path.c_str(), flags, 0600);
    if (fd_ < 0) {
      const int e = errno;
      throw open_error(describe_failure("cannot open", this->path(), 0, 0, e, advice_for(e)), this->path(), 0, 0,
                       e);
    }
  }
}

posix_file::~posix_file() { close_noexcept(); }

void posix_file::lock_for_writing() {
  check_open("cannot lock", 0, 0);
  struct flock lock;
  std::memset(&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET; // l_start 0, l_len 0: the whole file, however large it grows
  while (::fcntl(fd_, F_SETLK, &lock) != 0) {
    const int e = errno;
    if (e == EINTR) continue;
    if (e != EACCES && e != EAGAIN) {
      // A file system without locks (some network mounts): using the file unlocked would
      // let a second program corrupt it, so refuse.
      throw open_error(describe_failure("cannot lock", path(), 0, 0, e,
                                        "Its file system does not support locks; give a file on a "
                                        "local file system, or a directory for a temporary disk."),
                       path(), 0, 0, e);
    }
    // Who holds it: F_GETLK reports a conflicting lock with its owner's pid.
    struct flock holder;
    std::memset(&holder, 0, sizeof holder);
    holder.l_type = F_WRLCK;
    holder.l_whence = SEEK_SET;
    std::string who = "another program";
    if (::fcntl(fd_, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK && holder.l_pid > 0)
      who = "process " + std::to_string(holder.l_pid);
    throw open_error("flow: '" + path() + "' is in use: " + who +
                         " holds its lock (it is its disk). Two programs on one disk file would "
                         "overwrite each other's blocks; wait for it to end, or give this program "
                         "another --disk (a directory gives a temporary disk of its own).",
                     path(), 0, 0, e);
  }
}

void posix_file::close_impl() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool posix_file::drop_direct(int error_number) {
  if (!direct()) return false;
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) < 0) return false;
  direct_ = false;
  warn_direct_refused(path(), error_number);
  return true;
}

bool posix_file::retry_after(int error_number) {
  return error_number == EINTR || (error_number == EINVAL && drop_direct(error_number));
}

std::uint64_t posix_file::size() {
  check_open("cannot ask the size of", 0, 0);
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw_system_error("cannot stat", path(), 0, 0, errno);
  if (S_ISBLK(st.st_mode)) { // st_size is 0 for a block device; its end is its size
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    if (end < 0) throw_system_error("cannot ask the size of", path(), 0, 0, errno);
    return static_cast<std::uint64_t>(end);
  }
  return static_cast<std::uint64_t>(st.st_size);
}

void posix_file::set_size(std::uint64_t bytes) {
  check_open("cannot resize", 0, bytes);
  while (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    if (errno != EINTR) throw_system_error("cannot resize", path(), 0, bytes, errno);
  }
}

template <class Transfer>
std::size_t posix_file::transfer_all(const char* what, std::uint64_t offset, std::size_t bytes, Transfer transfer) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = transfer(done);
    if (n < 0) {
      if (retry_after(errno)) continue;
      throw_system_error(what, path(), offset, bytes, errno);
    }
    if (n == 0) break; // a read at the end of the file; a write to a full disk
    done += static_cast<std::size_t>(n);
    // A direct transfer that stops short ended at the end of the file (or of the disk);
    // asking again at the unaligned position would only give EINVAL.
    if (direct() && done < bytes && (offset + done) % direct_alignment != 0) break;
  }
  return done;
}

std::size_t posix_file::read_at(void* buffer, std::uint64_t offset, std::size_t bytes,
                                std::size_t min_bytes) {
  auto* p = static_cast<char*>(buffer);
  const std::size_t done = transfer_all("cannot read from", offset, bytes, [&](std::size_t from) {
    return ::pread(fd_, p + from, bytes - from, static_cast<off_t>(offset + from));
  });
  if (done < min_bytes) {
    struct stat st;
    const long long file_bytes = ::fstat(fd_, &st) == 0 ? static_cast<long long>(st.st_size) : -1;
    throw short_read_error(
        describe_failure("short read from", path(), offset, bytes, 0,
                         "Only " + std::to_string(done) + " bytes were there: the file has " +
                             std::to_string(file_bytes) +
                             " bytes, it is shorter than expected (truncated, or changed by "
                             "another program while in use). Recreate it and run again."),
        path(), offset, bytes, 0);
  }
  return done;
}

void posix_file::write_at(const void* buffer, std::uint64_t offset, std::size_t bytes) {
  const auto* p = static_cast<const char*>(buffer);
  const std::size_t done = transfer_all("cannot write to", offset, bytes, [&](std::size_t from) {
    return ::pwrite(fd_, p + from, bytes - from, static_cast<off_t>(offset + from));
  });
  if (done < bytes) throw_system_error("cannot write to", path(), offset, bytes, ENOSPC);
}

} // namespace flow::io
