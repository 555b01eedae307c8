#pragma once
// The queue of one disk and the Boost.Thread worker that serves it: requests run one at
// a time in FIFO order with synchronous system calls (STXXL's AIO design), so a write
// followed by a read of the same block on the same disk always reads what was written.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "flow/io/request.hpp"
#include "flow/io/stats.hpp"

namespace boost {
class thread; // defined in request_queue.cpp's includes only: Boost.Thread's headers are a
              // fifth of a generated program's preprocessed lines, for one member here
} // namespace boost

namespace flow::io {

class request_queue {
public:
  /// Starts the worker. `name` names the disk in statistics (usually the file path).
  explicit request_queue(std::string name);
  /// Serves what is still queued, then stops and joins the worker.
  ~request_queue();
  request_queue(const request_queue&) = delete;
  request_queue& operator=(const request_queue&) = delete;

  void submit(request_ptr r);
  const std::string& name() const noexcept { return counters_->name; }
  const disk_counters& counters() const noexcept { return *counters_; }

private:
  void run();

  std::shared_ptr<disk_counters> counters_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<request_ptr> queue_;
  bool stopping_ = false;
  std::unique_ptr<boost::thread> worker_; // started last, after everything it uses is constructed
};

} // namespace flow::io
