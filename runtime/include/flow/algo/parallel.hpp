#pragma once
// The sorter's threads: a thread_team runs one function on N threads at once (the caller
// is thread 0, N-1 helpers persist between calls, so a parallel step costs a wake-up, not
// a thread start), and a background_worker runs queued tasks in order on one thread (run
// formation sorts and writes run i there while the caller fills run i+1).
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

/// Threads to use when the caller does not say: the runtime's policy (flow::threads()).
inline unsigned default_threads() { return flow::threads(); }

class thread_team {
public:
  /// A team of `threads` (>= 1) threads: the caller of run() plus threads-1 helpers.
  explicit thread_team(unsigned threads = default_threads()) : size_(std::max(1u, threads)) {
    for (unsigned i = 1; i < size_; ++i) helpers_.emplace_back([this, i] { helper(i); });
  }
  ~thread_team() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
  }
  thread_team(const thread_team&) = delete;
  thread_team& operator=(const thread_team&) = delete;

  unsigned size() const noexcept { return size_; }

  /// Calls fn(i) for i = 0..size()-1, each on its own thread (0 on the caller's), and
  /// returns when all finished; rethrows the first exception. Not reentrant: one run()
  /// at a time per team.
  void run(const std::function<void(unsigned)>& fn) {
    if (size_ == 1) {
      fn(0);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &fn;
      pending_ = size_ - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
      fn(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    task_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
  }

private:
  void helper(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        task = task_;
      }
      std::exception_ptr err;
      try {
        (*task)(index);
      } catch (...) {
        err = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (err && !error_) error_ = err;
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  const unsigned size_;
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* task_ = nullptr;
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
  background_worker() : thread_([this] { loop(); }) {}
  ~background_worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  background_worker(const background_worker&) = delete;
  background_worker& operator=(const background_worker&) = delete;

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
      ++outstanding_;
    }
    wake_.notify_all();
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return outstanding_ == 0; });
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

  /// Rethrows (once) the failure of a finished task, without waiting.
  void check() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

private:
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return; // stopping and nothing left
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      std::exception_ptr err;
      try {
        task();
      } catch (...) {
        err = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (err && !error_) error_ = err;
        if (--outstanding_ == 0) idle_.notify_all();
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> queue_;
  std::size_t outstanding_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::thread thread_; // last: starts after the members it uses
};

} // namespace flow::algo
