#pragma once
// What a merge join (flow::stream::join / left_join, flow/stream/join.hpp) and a hash join
// (flow::stream::hash_join, flow/stream/hash_join.hpp) need of their budget and what
// I/O they cost — the one copy of that arithmetic. The join node
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

// --- the hash join (flow::stream::hash_join, flow/stream/hash_join.hpp) ---------------
//
// A hash join keeps the right ("build") input in memory as a table: its elements in an
// array sorted by their keys' hashes (equal keys side by side) and a directory of the
// array's buckets (the top bits of the hash), one entry of 4 bytes per 2 elements or
// more — at most element_bytes + 2 bytes an element, and 8 more. Its memory also
// holds the four block buffers of its spill (two write or read the rest of the build
// input, two the probe input). A build input that the table holds costs no I/O. A larger
// one takes passes: the first fills the table and writes the rest of the build input and
// all the probe input to disk; each further pass fills the table from the build input's
// rest and reads the probe input again.
//
//   hash_join_capacity(s, M, B) = 2 floor((M - 4B - 8) / (2 s + 4)) build elements a pass
//   hash_join_cost(Nb, sb, Np, sp, M, B): passes = ceil(Nb / capacity);
//     with passes > 1: written blocks(Nb - capacity) + blocks(Np), read
//     blocks(Nb - capacity) + (passes - 1) * blocks(Np) (blocks of B bytes, rounded up).

/// Spill buffers a hash join keeps in its memory: two for its build input, two for its probe input.
inline constexpr std::uint64_t hash_join_spill_blocks = 4;

/// The least memory a hash join accepts: its spill buffers and one block of table.
inline constexpr std::uint64_t hash_join_min_memory(std::uint64_t block_bytes) noexcept {
  return sat_mul(hash_join_spill_blocks + 1, block_bytes);
}

/// Elements a directory entry (4 bytes) serves at least: a bucket holds this many to
/// twice this many, a cache line or two of small elements.
inline constexpr std::uint64_t hash_join_bucket_elements = 2;

/// The directory's buckets for a table of `elements`: the largest power of two at most
/// elements / hash_join_bucket_elements (at least 1).
inline constexpr std::uint64_t hash_join_buckets(std::uint64_t elements) noexcept {
  std::uint64_t b = 1;
  while (b <= elements / (2 * hash_join_bucket_elements)) b *= 2;
  return b;
}

/// The table's bytes for `elements` build elements of `element_bytes`: the elements and
/// the directory (a bucket's first element, and the end).
inline constexpr std::uint64_t hash_join_table_bytes(std::uint64_t elements, std::uint64_t element_bytes) noexcept {
  return sat_add(sat_mul(elements, element_bytes), sat_mul(hash_join_buckets(elements) + 1, 4));
}

/// What a hash join needs for a build input of `elements`: its spill buffers and room for
/// a table of that many at the bound hash_join_capacity counts (element_bytes + 4 /
/// hash_join_bucket_elements bytes an element, and 8 more), at least hash_join_table_bytes.
inline constexpr std::uint64_t hash_join_memory_for(std::uint64_t elements, std::uint64_t element_bytes,
                                                    std::uint64_t block_bytes) noexcept {
  constexpr std::uint64_t e = hash_join_bucket_elements;
  const std::uint64_t groups = elements / e + (elements % e != 0 ? 1 : 0);
  return sat_add(sat_add(sat_mul(groups, sat_add(sat_mul(e, element_bytes), 4)), 8),
                 sat_mul(hash_join_spill_blocks, block_bytes));
}

/// The most build elements a pass holds (the directory's positions are 32 bits).
inline constexpr std::uint64_t hash_join_max_elements = 0xFFFFFFFFu;

/// The build elements one pass holds in `memory_bytes` (at least 1).
inline constexpr std::uint64_t hash_join_capacity(std::uint64_t element_bytes, std::uint64_t memory_bytes,
                                                  std::uint64_t block_bytes) noexcept {
  const std::uint64_t reserved = sat_add(sat_mul(hash_join_spill_blocks, block_bytes), 8);
  // the directory: 4 * (buckets + 1) <= 4 * elements / hash_join_bucket_elements + 8 bytes
  constexpr std::uint64_t e = hash_join_bucket_elements;
  const std::uint64_t n = memory_bytes > reserved ? (memory_bytes - reserved) / (e * element_bytes + 4) * e : 0;
  return n < 1 ? 1 : n > hash_join_max_elements ? hash_join_max_elements : n;
}

/// A hash join probes its left input a batch at a time — as many left elements as a block
/// holds of them or of outputs, whichever is larger, and their hashes — in chunks that its
/// threads take as they come, each chunk's outputs into a buffer of its own with room for
/// twice the chunk (at least 64); while one batch is put out, the threads probe the next,
/// so it holds two batches. None of it depends on
/// the thread count: a pass holds the same elements, and the output is in the same order,
/// at any number of threads. Each buffer is in whole pages; the table gets the rest.
inline constexpr std::uint64_t hash_join_batch_elements(std::uint64_t left_bytes, std::uint64_t out_bytes,
                                                        std::uint64_t block_bytes) noexcept {
  const std::uint64_t larger = left_bytes > out_bytes ? left_bytes : out_bytes;
  const std::uint64_t k = block_bytes / (larger > 0 ? larger : 1);
  return k > 0 ? k : 1;
}
/// Chunks of a batch of `batch` elements: one per 256 elements, 1 to 64.
inline constexpr std::uint64_t hash_join_chunks(std::uint64_t batch) noexcept {
  const std::uint64_t c = batch / 256;
  return c < 1 ? 1 : c > 64 ? 64 : c;
}
/// Left elements of a chunk (the last one may have fewer).
inline constexpr std::uint64_t hash_join_chunk_elements(std::uint64_t batch) noexcept {
  const std::uint64_t c = hash_join_chunks(batch);
  return batch / c + (batch % c != 0 ? 1 : 0);
}
inline constexpr std::uint64_t hash_join_outputs_per_chunk(std::uint64_t batch) noexcept {
  const std::uint64_t twice = 2 * hash_join_chunk_elements(batch);
  return twice > 64 ? twice : 64;
}
inline constexpr std::uint64_t hash_join_probe_bytes(std::uint64_t left_bytes, std::uint64_t out_bytes,
                                                     std::uint64_t block_bytes) noexcept {
  auto pages = [](std::uint64_t b) { return sat_mul(b / 4096 + (b % 4096 != 0 ? 1 : 0), 4096); };
  const std::uint64_t k = hash_join_batch_elements(left_bytes, out_bytes, block_bytes);
  const std::uint64_t outputs = sat_mul(hash_join_chunks(k), hash_join_outputs_per_chunk(k));
  const std::uint64_t batch = sat_add(sat_add(pages(sat_mul(k, left_bytes)), pages(sat_mul(k, 8))),
                                      pages(sat_mul(outputs, out_bytes)));
  return sat_mul(2, batch);
}

/// The passes and the I/O of a hash join (see above).
struct hash_join_io {
  std::uint64_t passes = 1;
  std::uint64_t write_bytes = 0;
  std::uint64_t read_bytes = 0;
  constexpr std::uint64_t io_bytes() const noexcept { return sat_add(write_bytes, read_bytes); }
};

inline constexpr hash_join_io hash_join_cost(std::uint64_t build_elements, std::uint64_t build_bytes,
                                             std::uint64_t probe_elements, std::uint64_t probe_bytes,
                                             std::uint64_t memory_bytes, std::uint64_t block_bytes) noexcept {
  const std::uint64_t holds = hash_join_capacity(build_bytes, memory_bytes, block_bytes);
  if (build_elements <= holds) return {};
  auto blocks = [&](std::uint64_t elements, std::uint64_t bytes) {
    const std::uint64_t per = block_bytes / (bytes > 0 ? bytes : 1);
    if (per == 0) return std::uint64_t{0};
    return sat_mul(elements / per + (elements % per != 0 ? 1 : 0), block_bytes);
  };
  hash_join_io c;
  c.passes = build_elements / holds + (build_elements % holds != 0 ? 1 : 0);
  const std::uint64_t rest = blocks(build_elements - holds, build_bytes), probe = blocks(probe_elements, probe_bytes);
  c.write_bytes = sat_add(rest, probe);
  c.read_bytes = sat_add(rest, sat_mul(c.passes - 1, probe));
  return c;
}

} // namespace flow::plan
