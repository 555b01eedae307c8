// flow::algo::thread_team and background_worker (flow/algo/parallel.hpp).
#include "flow/algo/parallel.hpp"

namespace flow::algo {

thread_team::thread_team(unsigned threads) : size_(std::max(1u, threads)) {
  for (unsigned i = 1; i < size_; ++i) helpers_.emplace_back([this, i] { helper(i); });
}

thread_team::~thread_team() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : helpers_) t.join();
}

void thread_team::run(const std::function<void(unsigned)>& fn) {
  if (size_ == 1) {
    fn(0);
    return;
  }
  begin(&fn);
  end(run_catching([&] { fn(0); }));
}

void thread_team::start(std::function<void(unsigned)> fn) {
  started_ = std::move(fn);
  if (size_ > 1) begin(&started_);
}

void thread_team::wait() {
  if (size_ > 1) end(nullptr);
}

void thread_team::begin(const std::function<void(unsigned)>* fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = fn;
    pending_ = size_ - 1;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
}

void thread_team::end(std::exception_ptr mine) {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  task_ = nullptr;
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

void thread_team::helper(unsigned index) {
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
    const std::exception_ptr err = run_catching([&] { (*task)(index); });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (err && !error_) error_ = err;
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

background_worker::background_worker() : thread_([this] { loop(); }) {}

background_worker::~background_worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void background_worker::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
    ++outstanding_;
  }
  wake_.notify_all();
}

void background_worker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return outstanding_ == 0; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void background_worker::check() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void background_worker::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return; // stopping and nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::exception_ptr err = run_catching(task);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (err && !error_) error_ = err;
      if (--outstanding_ == 0) idle_.notify_all();
    }
  }
}

} // namespace flow::algo
