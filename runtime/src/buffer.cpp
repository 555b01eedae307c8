// Aligned buffer allocation with a process-wide count of buffer bytes.
#include "flow/io/buffer.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace flow::io {
namespace {
std::atomic<std::uint64_t> current_bytes{0};
std::atomic<std::uint64_t> peak_bytes{0};
} // namespace

void* allocate_buffer(std::size_t bytes) {
  const std::size_t rounded = (bytes + buffer_alignment - 1) / buffer_alignment * buffer_alignment;
  void* p = std::aligned_alloc(buffer_alignment, rounded ? rounded : buffer_alignment);
  if (!p) throw std::bad_alloc();
  const std::uint64_t now = current_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void free_buffer(void* buffer, std::size_t bytes) noexcept {
  if (!buffer) return;
  std::free(buffer);
  current_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

std::uint64_t buffer_memory::current() noexcept {
  return current_bytes.load(std::memory_order_relaxed);
}
std::uint64_t buffer_memory::peak() noexcept { return peak_bytes.load(std::memory_order_relaxed); }
void buffer_memory::reset_peak() noexcept {
  peak_bytes.store(current_bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

} // namespace flow::io
