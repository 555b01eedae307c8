#pragma once
// An asynchronous read or write of one byte range of one file: the handle a caller gets
// back from file::aread / file::awrite. The disk's worker thread performs it; the caller
// polls or waits. A failure is kept in the request and rethrown by every wait on it, in
// the waiting thread. Waiting is counted as I/O wait in flow::io::stats.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace flow::io {

class file;
class request;
using request_ptr = std::shared_ptr<request>;

/// Called by the disk's worker thread when the request finished (also on failure: check
/// request::failed()), before waiters are released. It must be short and must not wait
/// on this request. An exception it throws becomes the request's error.
using completion_handler = std::function<void(request&)>;

enum class request_kind : unsigned char { read, write };

class request {
public:
  request(file& target, request_kind kind, void* buffer, std::uint64_t offset, std::size_t bytes,
          std::size_t min_bytes, completion_handler on_complete);
  request(const request&) = delete;
  request& operator=(const request&) = delete;

  request_kind kind() const noexcept { return kind_; }
  file& target() const noexcept { return target_; }
  void* buffer() const noexcept { return buffer_; }
  std::uint64_t offset() const noexcept { return offset_; }
  std::size_t bytes() const noexcept { return bytes_; }
  /// Bytes actually moved; equals bytes() except for reads that may end early at EOF.
  std::size_t transferred() const noexcept { return transferred_; }

  /// True once the request has finished (successfully or not). Never blocks or throws.
  bool poll() const noexcept { return done_.load(std::memory_order_acquire); }
  /// Blocks until the request finished; rethrows its error (an io_error) if it failed.
  void wait();
  /// Valid once finished.
  bool failed() const noexcept { return error_ != nullptr; }
  std::exception_ptr error() const noexcept { return error_; }
  /// "read of 4096 bytes at offset 0 of '/var/tmp/x'" — for logs and messages.
  std::string describe() const;

  // --- used by request_queue's worker ----------------------------------------------------
  /// Performs the transfer on the worker thread; stores any exception.
  void execute() noexcept;
  /// Runs the completion handler, marks the request finished and wakes its waiters.
  void complete() noexcept;

private:
  file& target_;
  const request_kind kind_;
  void* const buffer_;
  const std::uint64_t offset_;
  const std::size_t bytes_;
  const std::size_t min_bytes_;
  completion_handler on_complete_;
  std::size_t transferred_ = 0;
  std::exception_ptr error_;
  std::atomic<bool> done_{false};
};

/// Waits until every request finished, then rethrows the first failure (in order). All
/// of them have finished when it throws, so no buffer is still in use by a disk.
void wait_all(std::span<const request_ptr> requests);

/// Waits until at least one request finished; returns the index of one that has.
/// Does not rethrow: call wait() on the returned request to see its error. The span
/// must not be empty.
std::size_t wait_any(std::span<const request_ptr> requests);

/// Index of a finished request, or requests.size() if none has finished. Never blocks.
std::size_t poll_any(std::span<const request_ptr> requests) noexcept;

/// Waits until `r` (if any) finished and drops its error: for destructors and unwinding,
/// where nobody asks for the transfer's result but its buffer must outlive it.
void wait_quietly(const request_ptr& r) noexcept;

/// Iterator forms (STXXL style): wait_all(v.begin(), v.end()).
template <class It> void wait_all(It first, It last) {
  std::vector<request_ptr> all(first, last);
  wait_all(std::span<const request_ptr>(all));
}

namespace detail {
/// The mutex and condition variable every request completion signals. One for the whole
/// process: completions are per block (rare), and one signal makes wait_any simple.
struct completion_signal;
completion_signal& completion();
void wait_until(const std::function<bool()>& ready); // blocks on the signal until ready()
} // namespace detail

} // namespace flow::io
