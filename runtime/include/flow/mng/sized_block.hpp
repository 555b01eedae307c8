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
#include "flow/io/request.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/disk.hpp"

namespace flow::mng {

template <class T> class sized_block {
  static_assert(std::is_trivially_copyable_v<T>,
                "blocks move elements as raw bytes: T must be trivially copyable");

public:
  using value_type = T;

  /// Throws std::invalid_argument unless `bytes` is a positive multiple of 4096 that
  /// holds at least one element.
  explicit sized_block(std::size_t bytes) : buffer_(checked(bytes)), elements_(bytes / sizeof(T)) {}
  sized_block(const sized_block&) = delete;
  sized_block& operator=(const sized_block&) = delete;

  /// Bytes of the block on disk; elements it holds.
  std::size_t bytes() const noexcept { return buffer_.size(); }
  std::size_t elements() const noexcept { return elements_; }

  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + elements_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + elements_; }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  // The elements live in raw storage; T is trivially copyable, so bytes are objects.
  T* data() noexcept { return std::launder(reinterpret_cast<T*>(buffer_.data())); }
  const T* data() const noexcept { return std::launder(reinterpret_cast<const T*>(buffer_.data())); }
  std::byte* raw() noexcept { return buffer_.data(); }
  const std::byte* raw() const noexcept { return buffer_.data(); }

  /// Asynchronous transfer of the whole block from / to `id` (which must be bytes()).
  io::request_ptr read(const block_id& id, io::completion_handler on_complete = {}) {
    return id.storage->file().aread(buffer_.data(), id.offset, buffer_.size(), std::move(on_complete));
  }
  io::request_ptr write(const block_id& id, io::completion_handler on_complete = {}) const {
    return id.storage->file().awrite(buffer_.data(), id.offset, buffer_.size(), std::move(on_complete));
  }

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
