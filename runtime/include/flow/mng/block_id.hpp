#pragma once
// Where a block lives: the disk, the byte offset on it, and the block's size in bytes.
// A plain value (24 bytes): store it in run lists, sort by it, compare it.
#include <cstdint>
#include <ostream>

namespace flow::mng {

class disk;

struct block_id {
  disk* storage = nullptr;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;

  bool valid() const noexcept { return storage != nullptr; }
  friend bool operator==(const block_id&, const block_id&) = default;
};

std::ostream& operator<<(std::ostream& out, const block_id& id);

} // namespace flow::mng
