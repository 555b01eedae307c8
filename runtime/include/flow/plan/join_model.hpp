#pragma once
// What a merge join (flow::stream::join / left_join, flow/stream/join.hpp) needs of its
// budget and what I/O a key group costs — the one copy of that arithmetic. The join node
// sizes its group buffer with these functions; the compiler's planner prices a join with
// the same ones. Header-only, no dependency on the rest of the runtime.
//
// The join holds one key group of the right input at a time, in blocks of `block_bytes`
// (block_bytes / element_bytes elements each): up to memory / block - 2 blocks stay in
// memory, two more blocks are the spill buffers. A group that fits into all
// memory / block blocks costs no I/O. A larger group keeps its first memory / block - 2
// blocks in memory and writes the rest ("spilled blocks", S of them) to disk once; every
// left element of the key then re-reads those S blocks (the in-memory head is not read).
//
//   join_group_cost(G, L, s, M, B): S = ceil(G / (B / s)) - (M / B - 2) blocks when
//   G > (M / B) * (B / s), else 0; written S * B bytes, read L * S * B bytes.
#include <cstdint>

#include "flow/plan/saturating.hpp"

namespace flow::plan {

/// Blocks the join needs at least: one block of group buffer and two spill buffers.
inline constexpr std::uint64_t join_min_blocks = 3;

/// The least memory_bytes a join with blocks of `block_bytes` accepts (3 blocks).
inline constexpr std::uint64_t join_min_memory(std::uint64_t block_bytes) noexcept {
  return sat_mul(join_min_blocks, block_bytes);
}

/// Right elements per block (0 when an element does not fit into a block).
inline constexpr std::uint64_t join_block_elements(std::uint64_t element_bytes, std::uint64_t block_bytes) noexcept {
  return element_bytes == 0 ? 0 : block_bytes / element_bytes;
}

/// Blocks of a group kept in memory before anything is written: memory / block - 2.
/// (Valid for memory_bytes >= join_min_memory(block_bytes).)
inline constexpr std::uint64_t join_memory_blocks(std::uint64_t memory_bytes, std::uint64_t block_bytes) noexcept {
  const std::uint64_t blocks = block_bytes == 0 ? 0 : memory_bytes / block_bytes;
  return blocks < join_min_blocks ? 1 : blocks - 2;
}

/// The largest right key group that costs no I/O: all memory / block blocks full.
inline constexpr std::uint64_t join_group_capacity(std::uint64_t element_bytes, std::uint64_t memory_bytes,
                                                   std::uint64_t block_bytes) noexcept {
  return sat_mul(join_memory_blocks(memory_bytes, block_bytes) + 2,
                 join_block_elements(element_bytes, block_bytes));
}

/// The I/O of one key group of `group_elements` right elements matched by `left_matches`
/// left elements (left elements are never buffered and cost nothing here).
struct join_group_io {
  std::uint64_t spilled_blocks = 0; ///< blocks of the group written to disk
  std::uint64_t write_bytes = 0;    ///< spilled_blocks * block_bytes, once
  std::uint64_t read_bytes = 0;     ///< spilled_blocks * block_bytes per left match
  constexpr std::uint64_t io_bytes() const noexcept { return sat_add(write_bytes, read_bytes); }
};

inline constexpr join_group_io join_group_cost(std::uint64_t group_elements, std::uint64_t left_matches,
                                               std::uint64_t element_bytes, std::uint64_t memory_bytes,
                                               std::uint64_t block_bytes) noexcept {
  const std::uint64_t per_block = join_block_elements(element_bytes, block_bytes);
  if (per_block == 0 || left_matches == 0) return {};
  if (group_elements <= join_group_capacity(element_bytes, memory_bytes, block_bytes)) return {};
  const std::uint64_t blocks = group_elements / per_block + (group_elements % per_block != 0 ? 1 : 0);
  const std::uint64_t spilled = blocks - join_memory_blocks(memory_bytes, block_bytes);
  const std::uint64_t bytes = sat_mul(spilled, block_bytes);
  return {spilled, bytes, sat_mul(bytes, left_matches)};
}

} // namespace flow::plan
