#pragma once
// The memory of the priority queue's internal sorted arrays: fixed-size chunks from the
// counted, aligned buffer allocator, handed out up to a limit that the queue lowers
// while external arrays hold read buffers. Freed chunks are kept for reuse (they still
// count against the limit); lowering the limit returns cached chunks to the allocator.
// Thread-safe: the two halves of a parallel merge take and return chunks concurrently.
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "flow/io/buffer.hpp"

namespace flow::containers::pq {

class chunk_pool {
public:
  chunk_pool(std::size_t chunk_bytes, std::size_t limit) : bytes_(chunk_bytes), limit_(limit) {}
  ~chunk_pool() {
    for (void* p : free_) io::free_buffer(p, bytes_);
  }
  chunk_pool(const chunk_pool&) = delete;
  chunk_pool& operator=(const chunk_pool&) = delete;

  std::size_t chunk_bytes() const noexcept { return bytes_; }

  void* acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      void* p = free_.back();
      free_.pop_back();
      ++in_use_;
      return p;
    }
    if (allocated_ >= limit_) {
      throw std::logic_error("flow: priority queue chunk pool exhausted (planning error)");
    }
    void* p = io::allocate_buffer(bytes_);
    ++allocated_;
    ++in_use_;
    return p;
  }
  void release(void* p) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_use_;
    if (allocated_ > limit_) {
      io::free_buffer(p, bytes_);
      --allocated_;
    } else {
      free_.push_back(p);
    }
  }
  /// Chunks that can still be acquired.
  std::size_t available() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_ > in_use_ ? limit_ - in_use_ : 0;
  }
  std::size_t in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use_;
  }
  /// Bytes held from the allocator (chunks in use and cached).
  std::size_t held_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocated_ * bytes_;
  }
  /// New limit; cached chunks above it are freed at once, chunks in use when returned.
  void set_limit(std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = limit;
    while (allocated_ > limit_ && !free_.empty()) {
      io::free_buffer(free_.back(), bytes_);
      free_.pop_back();
      --allocated_;
    }
  }
  std::size_t limit() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }

private:
  mutable std::mutex mutex_;
  const std::size_t bytes_;
  std::size_t limit_;
  std::size_t allocated_ = 0, in_use_ = 0;
  std::vector<void*> free_;
};

} // namespace flow::containers::pq
