#pragma once
// What typed_block and sized_block share: their elements lie in the block's raw bytes
// (Self::raw()), Self::elements() of them, and the whole block (Self::bytes()), or its first
// pages, moves to and from disk in one request. A base of each (CRTP), so every call inlines.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "flow/io/request.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/disk.hpp"

namespace flow::mng {

template <class Self, class T> class block_elements {
  static_assert(std::is_trivially_copyable_v<T>, "blocks move elements as raw bytes: T must be trivially copyable");

public:
  using value_type = T;

  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + self().elements(); }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + self().elements(); }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  // The elements live in raw storage; T is trivially copyable, so bytes are objects.
  T* data() noexcept { return std::launder(reinterpret_cast<T*>(self().raw())); }
  const T* data() const noexcept { return std::launder(reinterpret_cast<const T*>(self().raw())); }

  /// Asynchronous transfer of the whole block from / to `id` (which must be bytes()).
  io::request_ptr read(const block_id& id, io::completion_handler on_complete = {}) {
    return id.storage->file().aread(self().raw(), id.offset, self().bytes(), std::move(on_complete));
  }
  io::request_ptr write(const block_id& id, io::completion_handler on_complete = {}) const {
    return id.storage->file().awrite(self().raw(), id.offset, self().bytes(), std::move(on_complete));
  }
  /// The same for only the block's first `bytes` (a multiple of 4096, at most bytes()): a
  /// vector's last block moves only the pages its elements use, so a small vector in a
  /// loop costs its own size a round and not a whole block of up to 4 MiB.
  io::request_ptr read_first(const block_id& id, std::size_t bytes) {
    return id.storage->file().aread(self().raw(), id.offset, bytes);
  }
  io::request_ptr write_first(const block_id& id, std::size_t bytes) const {
    return id.storage->file().awrite(self().raw(), id.offset, bytes);
  }

private:
  Self& self() noexcept { return static_cast<Self&>(*this); }
  const Self& self() const noexcept { return static_cast<const Self&>(*this); }
};

} // namespace flow::mng
