#pragma once
// The sorter's threads: a thread_team runs one function on N threads at once (the caller
// is thread 0, N-1 helpers persist between calls, so a parallel step costs a wake-up, not
// a thread start; or start() sets the helpers going while the caller does other work),
// and a background_worker runs queued tasks in order on one thread (run formation sorts
// and writes run i there while the caller fills run i+1). Compiled once in libflow_runtime
// (src/algo/parallel.cpp): neither depends on what is sorted.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "flow/defaults.hpp"

namespace flow::algo {

/// Runs task() and returns what it threw (null when nothing): how a thread keeps a
/// task's exception for the thread that waits on it to rethrow.
template <class Task> std::exception_ptr run_catching(Task&& task) noexcept {
  try {
    task();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

/// Threads to use when the caller does not say: the runtime's policy (flow::threads()).
inline unsigned default_threads() { return flow::threads(); }

class thread_team {
public:
  /// A team of `threads` (>= 1) threads: the caller of run() plus threads-1 helpers.
  explicit thread_team(unsigned threads = default_threads());
  ~thread_team();
  thread_team(const thread_team&) = delete;
  thread_team& operator=(const thread_team&) = delete;

  unsigned size() const noexcept { return size_; }

  /// Calls fn(i) for i = 0..size()-1, each on its own thread (0 on the caller's), and
  /// returns when all finished; rethrows the first exception. Not reentrant: one run()
  /// at a time per team.
  void run(const std::function<void(unsigned)>& fn);

  /// Starts fn(i) for i = 1..size()-1 on the helpers and returns at once (nothing runs
  /// on a team of one); the caller goes on with other work (fn(0) too, if it likes) and
  /// then calls wait(), which returns when the helpers finished and rethrows the first
  /// exception. wait() must be called before the next start() or run(), and before what
  /// fn uses goes away.
  void start(std::function<void(unsigned)> fn);
  void wait();

private:
  void helper(unsigned index);
  void begin(const std::function<void(unsigned)>* fn);
  void end(std::exception_ptr mine);

  const unsigned size_;
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* task_ = nullptr;
  std::function<void(unsigned)> started_; // the task of start()
  unsigned pending_ = 0;
  std::uint64_t generation_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
};

/// One background thread running submitted tasks in FIFO order. wait() blocks until every
/// task submitted so far finished and rethrows the first failure (later tasks still run,
/// so that buffers handed to them are released).
class background_worker {
public:
  background_worker();
  ~background_worker();
  background_worker(const background_worker&) = delete;
  background_worker& operator=(const background_worker&) = delete;

  void submit(std::function<void()> task);

  void wait();

  /// Rethrows (once) the failure of a finished task, without waiting.
  void check();

private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> queue_;
  std::size_t outstanding_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::thread thread_; // last: starts after the members it uses
};

} // namespace flow::algo
