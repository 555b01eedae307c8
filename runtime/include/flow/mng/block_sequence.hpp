#pragma once
// A sequence of elements stored in consecutive blocks (the form of a sorted run, a
// materialized stream, a vector's content): the block ids in order and the element
// count. Every block but the last is full; the last holds the rest.
#include <cstdint>
#include <vector>

#include "flow/mng/block_id.hpp"
#include "flow/mng/block_manager.hpp"

namespace flow::mng {

struct block_sequence {
  std::vector<block_id> blocks;
  std::uint64_t size = 0; // elements

  bool empty() const noexcept { return size == 0; }
  /// Returns the blocks to `bm` and clears the sequence.
  void free(block_manager& bm) {
    bm.free(blocks);
    blocks.clear();
    size = 0;
  }
};

} // namespace flow::mng
