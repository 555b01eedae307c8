#pragma once
// A block of elements: RawSize bytes, page-aligned, holding RawSize / sizeof(T)
// elements (the rest is padding). The size is a template parameter so that index
// arithmetic compiles to shifts and per-element code inlines. Blocks are created with
// `new` (which counts them in io::buffer_memory) and moved by pointer, never copied.
#include <cstddef>
#include <new>
#include <type_traits>

#include "flow/io/buffer.hpp"
#include "flow/mng/block_elements.hpp"

namespace flow::mng {

template <std::size_t RawSize, class T> class typed_block : public block_elements<typed_block<RawSize, T>, T> {
  static_assert(RawSize % io::buffer_alignment == 0,
                "block size must be a multiple of 4096 bytes (O_DIRECT alignment)");
  static_assert(sizeof(T) <= RawSize, "an element does not fit into one block");

public:
  static constexpr std::size_t raw_size = RawSize;
  /// Elements per block.
  static constexpr std::size_t size = RawSize / sizeof(T);
  /// The same as sized_block's (code that serves both blocks uses these).
  static constexpr std::size_t bytes() noexcept { return RawSize; }
  static constexpr std::size_t elements() noexcept { return size; }

  typed_block() noexcept {} // user-provided: `new typed_block()` must not zero RawSize bytes
  typed_block(const typed_block&) = delete;
  typed_block& operator=(const typed_block&) = delete;

  std::byte* raw() noexcept { return raw_; }
  const std::byte* raw() const noexcept { return raw_; }

  // Blocks come from the counted, aligned buffer allocator.
  static void* operator new(std::size_t bytes) { return io::allocate_buffer(bytes); }
  static void* operator new(std::size_t bytes, std::align_val_t) {
    return io::allocate_buffer(bytes);
  }
  static void operator delete(void* p) noexcept { io::free_buffer(p, sizeof(typed_block)); }
  static void operator delete(void* p, std::align_val_t) noexcept {
    io::free_buffer(p, sizeof(typed_block));
  }
  static void* operator new[](std::size_t) = delete;

private:
  alignas(io::buffer_alignment) std::byte raw_[RawSize];
};

} // namespace flow::mng
