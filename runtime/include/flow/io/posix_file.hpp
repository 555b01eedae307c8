#pragma once
// A file on a POSIX file system (or a device such as /dev/full), accessed with
// pread/pwrite, by default with O_DIRECT so blocks move by DMA without a page-cache copy.
// Where the file system refuses O_DIRECT (at open, or with EINVAL on the first
// transfer), the file continues buffered and the process prints one warning.
#include <atomic>
#include <cstdint>
#include <string>

#include "flow/io/file.hpp"

namespace flow::io {

/// Bit flags for posix_file's mode.
namespace open_mode {
inline constexpr unsigned read = 1u;       // open for reading
inline constexpr unsigned write = 2u;      // open for writing
inline constexpr unsigned create = 4u;     // create if missing
inline constexpr unsigned truncate = 8u;   // truncate to 0 bytes
inline constexpr unsigned direct = 16u;    // O_DIRECT (with buffered fallback)
inline constexpr unsigned exclusive = 32u; // fail if it exists (with create)
} // namespace open_mode

/// Required alignment of buffers, offsets and sizes of direct transfers. 4096 covers
/// every common logical block size (512 and 4096).
inline constexpr std::size_t direct_alignment = 4096;

class posix_file final : public file {
public:
  /// Opens `path`; throws open_error naming the path, errno text and what to do. A file
  /// it creates gets mode 0600 (less the umask): only its owner may read the runtime's
  /// files. Outputs the user keeps are created by atomic_output with their own mode.
  /// `name`, if given, is what messages and statistics call the file instead of `path`
  /// (an output's temporary is opened by its /proc/self/fd link but named as the target).
  posix_file(const std::string& path, unsigned mode,
             std::shared_ptr<request_queue> queue = nullptr, std::string name = {});
  ~posix_file() override;

  /// Takes an exclusive write lock on the whole file (fcntl F_SETLK; released when the
  /// file closes or the process ends, even by SIGKILL), so that a second program given
  /// the same disk file fails instead of overwriting the first one's blocks. Throws
  /// open_error naming the file and, when the kernel tells, the pid holding the lock.
  void lock_for_writing();

  std::uint64_t size() override;
  void set_size(std::uint64_t bytes) override;
  bool direct() const noexcept override { return direct_.load(std::memory_order_relaxed); }
  std::size_t alignment() const noexcept override { return direct() ? direct_alignment : 1; }

protected:
  std::size_t read_at(void* buffer, std::uint64_t offset, std::size_t bytes,
                      std::size_t min_bytes) override;
  void write_at(const void* buffer, std::uint64_t offset, std::size_t bytes) override;
  void close_impl() noexcept override;

private:
  /// Turns O_DIRECT off after the file system refused a direct transfer (warns once).
  bool drop_direct(int error_number);
  /// Whether a pread/pwrite that failed with `error_number` is tried again: when it was
  /// interrupted (EINTR), or refused as direct (EINVAL) and the file is now buffered.
  bool retry_after(int error_number);
  /// Calls transfer(done), a pread or pwrite of the bytes from `done` on, until `bytes`
  /// are done or it moves nothing; tries again where retry_after says, and throws
  /// "`what` PATH" for any other error. Returns the bytes done.
  template <class Transfer>
  std::size_t transfer_all(const char* what, std::uint64_t offset, std::size_t bytes, Transfer transfer);

  int fd_ = -1;
  std::atomic<bool> direct_{false};
};

/// Prints "flow: warning: ... refuses O_DIRECT ..." the first time it is called in the
/// process (later calls are silent). Returns true if it printed.
bool warn_direct_refused(const std::string& path, int error_number);

} // namespace flow::io
