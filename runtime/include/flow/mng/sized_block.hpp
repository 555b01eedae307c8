#pragma once
// A block of elements whose size is chosen at run time: `bytes` bytes (a multiple of
// 4096), page-aligned, holding bytes / sizeof(T) elements (the rest is padding). The
// containers a generated program uses (vector, priority_queue) take it so that their
// block size follows the program's --memory and --block (program::block()); typed_block
// is the same with the size fixed at compile time.
//
// new_block<Block>(bytes) makes either kind, so the streams, the prefetcher and the
// buffered writer serve both.
#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "flow/io/buffer.hpp"
#include "flow/mng/block_elements.hpp"

namespace flow::mng {

template <class T> class sized_block : public block_elements<sized_block<T>, T> {
public:

  /// Throws std::invalid_argument unless `bytes` is a positive multiple of 4096 that
  /// holds at least one element.
  explicit sized_block(std::size_t bytes) : buffer_(checked(bytes)), elements_(bytes / sizeof(T)) {}
  sized_block(const sized_block&) = delete;
  sized_block& operator=(const sized_block&) = delete;

  /// Bytes of the block on disk; elements it holds.
  std::size_t bytes() const noexcept { return buffer_.size(); }
  std::size_t elements() const noexcept { return elements_; }

  std::byte* raw() noexcept { return buffer_.data(); }
  const std::byte* raw() const noexcept { return buffer_.data(); }

private:
  static std::size_t checked(std::size_t bytes) {
    if (bytes == 0 || bytes % io::buffer_alignment != 0 || bytes < sizeof(T))
      throw std::invalid_argument("flow: a block of " + std::to_string(bytes) + " bytes (a block is a positive multiple of " +
                                  std::to_string(io::buffer_alignment) + " bytes holding at least one " +
                                  std::to_string(sizeof(T)) + "-byte element)");
    return bytes;
  }
  io::aligned_buffer buffer_; // counted in io::buffer_memory like every block
  std::size_t elements_;
};

/// A new block of `bytes` bytes (a sized_block), or of its fixed size (a typed_block,
/// which ignores `bytes`).
template <class Block> Block* new_block(std::size_t bytes) {
  if constexpr (std::is_constructible_v<Block, std::size_t>) return new Block(bytes);
  else return new Block;
}

} // namespace flow::mng
