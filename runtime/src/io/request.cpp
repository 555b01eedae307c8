// Requests: execution on the worker, completion signalling, waiting (counted as I/O wait).
#include "flow/io/request.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "flow/io/error.hpp"
#include "flow/io/file.hpp"
#include "flow/io/stats.hpp"

namespace flow::io {

namespace detail {
struct completion_signal {
  std::mutex mutex;
  std::condition_variable cv;
};

completion_signal& completion() {
  static completion_signal* signal = new completion_signal(); // outlives static destructors
  return *signal;
}

void wait_until(const std::function<bool()>& ready) {
  auto& s = completion();
  std::unique_lock lock(s.mutex);
  s.cv.wait(lock, ready);
}
} // namespace detail

namespace {
using clock = std::chrono::steady_clock;

std::uint64_t ns_since(clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count());
}
} // namespace

request::request(file& target, request_kind kind, void* buffer, std::uint64_t offset,
                 std::size_t bytes, std::size_t min_bytes, completion_handler on_complete)
    : target_(target), kind_(kind), buffer_(buffer), offset_(offset), bytes_(bytes),
      min_bytes_(min_bytes), on_complete_(std::move(on_complete)) {}

void request::execute() noexcept {
  try {
    if (kind_ == request_kind::read) {
      transferred_ = target_.read_at(buffer_, offset_, bytes_, min_bytes_);
    } else {
      target_.write_at(buffer_, offset_, bytes_);
      transferred_ = bytes_;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

void request::complete() noexcept {
  if (on_complete_) {
    try {
      on_complete_(*this);
    } catch (...) {
      if (!error_) error_ = std::current_exception();
    }
    on_complete_ = nullptr; // drop captured state (buffers, pools) as early as possible
  }
  auto& s = detail::completion();
  {
    std::lock_guard lock(s.mutex);
    done_.store(true, std::memory_order_release);
    // After this decrement the file may be closed and destroyed: do not touch target_.
    target_.pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
  s.cv.notify_all();
}

void request::wait() {
  if (!poll()) {
    const auto t0 = clock::now();
    detail::wait_until([this] { return poll(); });
    stats::instance().add_wait(kind_ == request_kind::write, ns_since(t0));
  }
  if (error_) std::rethrow_exception(error_);
}

std::string request::describe() const {
  return std::string(kind_ == request_kind::read ? "read" : "write") + " of " +
         std::to_string(bytes_) + " bytes at offset " + std::to_string(offset_) + " of '" +
         target_.path() + "'";
}

void wait_all(std::span<const request_ptr> requests) {
  bool all_done = true;
  bool any_write = false;
  for (const auto& r : requests) {
    if (!r->poll()) {
      all_done = false;
      any_write |= r->kind() == request_kind::write;
    }
  }
  if (!all_done) {
    const auto t0 = clock::now();
    detail::wait_until([&] {
      for (const auto& r : requests)
        if (!r->poll()) return false;
      return true;
    });
    stats::instance().add_wait(any_write, ns_since(t0));
  }
  for (const auto& r : requests)
    if (r->failed()) std::rethrow_exception(r->error());
}

std::size_t poll_any(std::span<const request_ptr> requests) noexcept {
  for (std::size_t i = 0; i < requests.size(); ++i)
    if (requests[i]->poll()) return i;
  return requests.size();
}

void wait_quietly(const request_ptr& r) noexcept {
  if (!r) return;
  try {
    r->wait();
  } catch (...) {
  }
}

std::size_t wait_any(std::span<const request_ptr> requests) {
  std::size_t i = poll_any(requests);
  if (i < requests.size()) return i;
  bool any_write = false;
  for (const auto& r : requests) any_write |= r->kind() == request_kind::write;
  const auto t0 = clock::now();
  detail::wait_until([&] {
    i = poll_any(requests);
    return i < requests.size();
  });
  stats::instance().add_wait(any_write, ns_since(t0));
  return i;
}

} // namespace flow::io
