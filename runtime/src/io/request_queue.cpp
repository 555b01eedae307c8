// The per-disk worker: takes requests in FIFO order, performs them, counts them.
#include "flow/io/request_queue.hpp"

#include <chrono>

#include <boost/thread/thread.hpp>

namespace flow::io {

request_queue::request_queue(std::string name)
    : counters_(stats::instance().register_disk(std::move(name))),
      worker_(std::make_unique<boost::thread>([this] { run(); })) {}

request_queue::~request_queue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
  worker_->join();
}

void request_queue::submit(request_ptr r) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(r));
  }
  ready_.notify_one();
}

void request_queue::run() {
  using clock = std::chrono::steady_clock;
  for (;;) {
    request_ptr r;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return; // stopping, and everything queued was served
      r = std::move(queue_.front());
      queue_.pop_front();
    }
    auto& global = stats::instance();
    global.io_started();
    const auto t0 = clock::now();
    r->execute();
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count());
    global.io_finished();
    // Count before completing, so a waiter that wakes up already sees this request.
    if (r->kind() == request_kind::read) {
      counters_->reads.fetch_add(1, std::memory_order_relaxed);
      counters_->read_bytes.fetch_add(r->transferred(), std::memory_order_relaxed);
      counters_->read_ns.fetch_add(ns, std::memory_order_relaxed);
    } else {
      counters_->writes.fetch_add(1, std::memory_order_relaxed);
      counters_->write_bytes.fetch_add(r->transferred(), std::memory_order_relaxed);
      counters_->write_ns.fetch_add(ns, std::memory_order_relaxed);
    }
    r->complete();
  }
}

} // namespace flow::io
