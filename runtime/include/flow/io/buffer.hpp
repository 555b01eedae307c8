#pragma once
// Page-aligned I/O buffers (O_DIRECT needs aligned memory) and the count of their bytes.
// Every block buffer of the runtime comes from here, so the count is the runtime's
// buffer memory: tests check a container's memory budget against buffer_memory::peak().
#include <cstddef>
#include <cstdint>
#include <utility>

namespace flow::io {

inline constexpr std::size_t buffer_alignment = 4096;

/// `bytes` of memory aligned to buffer_alignment; throws std::bad_alloc.
void* allocate_buffer(std::size_t bytes);
/// Frees a buffer from allocate_buffer; `bytes` must be the size it was allocated with.
void free_buffer(void* buffer, std::size_t bytes) noexcept;
/// Gives back, in place, the end of a buffer of `bytes` from allocate_buffer beyond its
/// first `new_bytes` (0 < new_bytes < bytes); it is then a buffer of `new_bytes` (to free
/// with that size). False, and nothing changes, where it cannot: a buffer the system
/// allocator made because a mapping was refused.
bool shrink_buffer(void* buffer, std::size_t bytes, std::size_t new_bytes) noexcept;

/// Bytes of I/O buffers allocated right now, and the most there were at once.
struct buffer_memory {
  static std::uint64_t current() noexcept;
  static std::uint64_t peak() noexcept;
  /// Starts a new peak measurement at the current level.
  static void reset_peak() noexcept;
};

/// An owned, aligned buffer of raw bytes (for chunks whose size is known only at run
/// time; blocks use typed_block).
class aligned_buffer {
public:
  aligned_buffer() = default;
  explicit aligned_buffer(std::size_t bytes)
      : data_(bytes ? allocate_buffer(bytes) : nullptr), bytes_(bytes) {}
  aligned_buffer(aligned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  aligned_buffer& operator=(aligned_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~aligned_buffer() { reset(); }

  void reset() noexcept {
    if (data_) free_buffer(data_, bytes_);
    data_ = nullptr;
    bytes_ = 0;
  }
  /// Keeps only the first `bytes` (0 < bytes <= size()), giving the rest back in place
  /// (shrink_buffer); false when it cannot, and the buffer keeps its size.
  bool shrink(std::size_t bytes) noexcept {
    if (bytes >= bytes_) return bytes == bytes_;
    if (!shrink_buffer(data_, bytes_, bytes)) return false;
    bytes_ = bytes;
    return true;
  }
  std::byte* data() const noexcept { return static_cast<std::byte*>(data_); }
  std::size_t size() const noexcept { return bytes_; }

private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

} // namespace flow::io
