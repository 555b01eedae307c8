// Aligned buffer allocation with a process-wide count of buffer bytes.
#include "flow/io/buffer.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_set>

#include <sys/mman.h>

namespace flow::io {
namespace {
std::atomic<std::uint64_t> current_bytes{0};
std::atomic<std::uint64_t> peak_bytes{0};

// Buffers are mapped from the system and unmapped when freed, so the resident memory
// follows the counted buffer bytes. From malloc they stayed resident after a free:
// glibc raises its mmap threshold to the size of each mapped chunk freed (up to 32 MiB)
// and serves later buffers from a heap it does not give back (a sort of 1 GiB at
// --memory 64MiB peaked at 120 MiB resident with 68 MiB of buffers), and a queue's 4 KiB
// chunks left holes in it (17 MiB resident at --memory 8MiB, 11 MiB mapped). Should the
// system refuse a mapping (vm.max_map_count), the buffer comes from malloc instead;
// those few are remembered so that free_buffer hands them back to free().
std::mutex fallback_mutex;
std::unordered_set<void*> fallback_buffers; // from aligned_alloc
std::atomic<std::size_t> fallback_count{0};

void* allocate_memory(std::size_t rounded) {
  void* p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) return p; // page-aligned: a multiple of buffer_alignment
  p = std::aligned_alloc(buffer_alignment, rounded);
  if (p) {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    fallback_buffers.insert(p);
    fallback_count.fetch_add(1, std::memory_order_relaxed);
  }
  return p;
}

void release_memory(void* p, std::size_t rounded) noexcept {
  if (fallback_count.load(std::memory_order_relaxed) > 0) {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    if (fallback_buffers.erase(p)) {
      fallback_count.fetch_sub(1, std::memory_order_relaxed);
      std::free(p);
      return;
    }
  }
  ::munmap(p, rounded);
}

std::size_t rounded_bytes(std::size_t bytes) {
  const std::size_t rounded = (bytes + buffer_alignment - 1) / buffer_alignment * buffer_alignment;
  return rounded ? rounded : buffer_alignment;
}
} // namespace

void* allocate_buffer(std::size_t bytes) {
  void* p = allocate_memory(rounded_bytes(bytes));
  if (!p) throw std::bad_alloc();
  const std::uint64_t now = current_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void free_buffer(void* buffer, std::size_t bytes) noexcept {
  if (!buffer) return;
  release_memory(buffer, rounded_bytes(bytes));
  current_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

bool shrink_buffer(void* buffer, std::size_t bytes, std::size_t new_bytes) noexcept {
  if (!buffer || new_bytes == 0 || new_bytes >= bytes) return false;
  if (fallback_count.load(std::memory_order_relaxed) > 0) {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    if (fallback_buffers.count(buffer)) return false; // free() wants the whole of it back
  }
  const std::size_t keep = rounded_bytes(new_bytes), had = rounded_bytes(bytes);
  if (keep < had && ::munmap(static_cast<char*>(buffer) + keep, had - keep) != 0) return false;
  current_bytes.fetch_sub(bytes - new_bytes, std::memory_order_relaxed);
  return true;
}

std::uint64_t buffer_memory::current() noexcept {
  return current_bytes.load(std::memory_order_relaxed);
}
std::uint64_t buffer_memory::peak() noexcept { return peak_bytes.load(std::memory_order_relaxed); }
void buffer_memory::reset_peak() noexcept {
  peak_bytes.store(current_bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

} // namespace flow::io
