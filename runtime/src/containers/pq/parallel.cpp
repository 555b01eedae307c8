// The priority queue's helper thread (see flow/containers/pq/parallel.hpp).
#include "flow/containers/pq/parallel.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/defaults.hpp"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

namespace flow::containers::pq {
namespace {

class helper {
public:
  helper() : worker_([this] { loop(); }) {}
  ~helper() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  /// Hands b to the worker if it is idle; false if it is busy.
  bool try_post(task b) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_) return false;
    busy_ = true;
    job_ = b;
    has_job_ = true;
    done_ = false;
    error_ = nullptr;
    wake_.notify_all();
    return true;
  }
  /// Waits for the posted task; rethrows its exception. If the worker has not picked
  /// the task up yet (a busy machine did not schedule it), takes it back and returns
  /// false: the caller runs it itself instead of waiting for a core.
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (has_job_) {
      has_job_ = false;
      busy_ = false;
      return false;
    }
    finished_.wait(lock, [this] { return done_; });
    busy_ = false;
    if (error_) {
      std::exception_ptr e = std::move(error_);
      error_ = nullptr;
      lock.unlock();
      std::rethrow_exception(e);
    }
    return true;
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || has_job_; });
      if (has_job_) {
        task t = job_;
        has_job_ = false;
        lock.unlock();
        const std::exception_ptr e = flow::algo::run_catching(t);
        lock.lock();
        error_ = e;
        done_ = true;
        finished_.notify_all();
      } else if (stop_) {
        return;
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  task job_;
  bool has_job_ = false, busy_ = false, done_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread worker_; // last: starts after the members it uses
};


helper& the_helper() {
  static helper h;
  return h;
}

} // namespace

bool parallel_available() noexcept { return flow::threads() > 1; }

void run_pair_tasks(task a, task b) {
  if (!parallel_available() || !the_helper().try_post(b)) {
    a();
    b();
    return;
  }
  const std::exception_ptr ea = flow::algo::run_catching(a);
  if (!the_helper().wait()) { // rethrows b's exception
    if (ea) std::rethrow_exception(ea);
    b(); // the helper never started it
    return;
  }
  if (ea) std::rethrow_exception(ea);
}

} // namespace flow::containers::pq
