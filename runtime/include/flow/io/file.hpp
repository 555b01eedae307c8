#pragma once
// The file interface of the AIO layer. Implementations (posix_file, memory_file) only
// move bytes synchronously (read_at / write_at); this base turns that into asynchronous
// requests served by the file's request_queue. Virtual calls happen once per request,
// i.e. once per block, never per element.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "flow/io/request.hpp"
#include "flow/io/request_queue.hpp"

namespace flow::io {

class file {
public:
  /// `queue` is the disk this file's requests go to; nullptr gives the file its own
  /// queue (and worker thread), named after the path.
  explicit file(std::string path, std::shared_ptr<request_queue> queue = nullptr);
  virtual ~file();
  file(const file&) = delete;
  file& operator=(const file&) = delete;

  const std::string& path() const noexcept { return path_; }

  /// Asynchronous read of exactly `bytes` bytes at `offset` into `buffer` (a shorter file
  /// is a short_read_error). For direct files buffer, offset and size must be aligned to
  /// alignment(); buffers from flow::io::allocate_buffer always are.
  request_ptr aread(void* buffer, std::uint64_t offset, std::size_t bytes,
                    completion_handler on_complete = {});
  /// Like aread, but the read may stop at end of file after `min_bytes` (for the aligned
  /// tail of a file read with O_DIRECT); request::transferred() tells how much came.
  request_ptr aread_partial(void* buffer, std::uint64_t offset, std::size_t bytes,
                            std::size_t min_bytes, completion_handler on_complete = {});
  request_ptr awrite(const void* buffer, std::uint64_t offset, std::size_t bytes,
                     completion_handler on_complete = {});

  /// Synchronous forms: submit and wait (the wait counts as I/O wait).
  void read(void* buffer, std::uint64_t offset, std::size_t bytes) {
    aread(buffer, offset, bytes)->wait();
  }
  void write(const void* buffer, std::uint64_t offset, std::size_t bytes) {
    awrite(buffer, offset, bytes)->wait();
  }

  virtual std::uint64_t size() = 0;
  virtual void set_size(std::uint64_t bytes) = 0;
  /// True while the file bypasses the page cache (O_DIRECT).
  virtual bool direct() const noexcept { return false; }
  /// Alignment that buffers, offsets and sizes of requests must have.
  virtual std::size_t alignment() const noexcept { return 1; }

  /// Waits for this file's pending requests, then closes it. Later requests throw
  /// closed_file_error. Idempotent.
  void close();
  bool is_open() const noexcept { return open_.load(std::memory_order_acquire); }
  request_queue& queue() noexcept { return *queue_; }

protected:
  /// Reads up to `bytes`, at least `min_bytes` (else short_read_error); returns the bytes
  /// read. Runs on the worker thread. Throws io_error.
  virtual std::size_t read_at(void* buffer, std::uint64_t offset, std::size_t bytes,
                              std::size_t min_bytes) = 0;
  virtual void write_at(const void* buffer, std::uint64_t offset, std::size_t bytes) = 0;
  /// Releases the OS resources; called once by close() when nothing is pending.
  virtual void close_impl() noexcept = 0;
  /// For derived destructors: close() without throwing.
  void close_noexcept() noexcept;
  void check_open(const char* action, std::uint64_t offset, std::size_t bytes) const;

private:
  friend class request;
  request_ptr submit(request_kind kind, void* buffer, std::uint64_t offset, std::size_t bytes,
                     std::size_t min_bytes, completion_handler on_complete);

  std::string path_;
  std::shared_ptr<request_queue> queue_;
  std::atomic<bool> open_{true};
  std::atomic<std::size_t> pending_{0}; // submitted, not yet finished (guarded by the signal)
};

} // namespace flow::io
