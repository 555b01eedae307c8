#pragma once
// Parameters of the external priority queue from a byte budget: the job of STXXL's
// PRIORITY_QUEUE_GENERATOR, as a plain constexpr function the compiler's planner calls
// at compile time (and the queue calls at run time), with the I/O volume bound the
// estimator prints. Header-only, no dependency on the rest of the runtime.
//
//   constexpr auto cfg = flow::containers::plan_priority_queue(256 << 20, 1 << 27, 8, 1 << 20);
//   static_assert(cfg.feasible);
//   flow::containers::priority_queue<u64> q(cfg);
//   std::uint64_t bound = cfg.io_bytes(inserts);
#include <cstddef>
#include <cstdint>
#include <string>

#include "flow/plan/saturating.hpp"

namespace flow::containers {

using plan::sat_add; // counts up to 2^63 give bounds of at most 2^64 - 1, no wrap
using plan::sat_mul;

/// What plan_priority_queue decided. All sizes in bytes unless named *_items/_blocks.
/// The parts that always exist add up to at most memory_bytes:
///   2*pages(insertion_items*item_bytes) + pages(deletion_items*item_bytes)
///   + write_blocks*block_bytes + pool_bytes  <=  memory_bytes   (pages: rounded up to 4 KiB),
/// and the pool is shared, at run time, by the internal arrays' chunks and the external
/// arrays' read buffers (read_blocks_per_array blocks each): chunks are only handed out
/// while the pool has room, so the queue never holds more than memory_bytes of buffers.
struct pq_config {
  std::uint64_t memory_bytes = 0;
  std::uint64_t expected_max_items = 0;
  std::size_t item_bytes = 0;
  std::size_t block_bytes = 0;

  std::size_t insertion_items = 0;  // insertion heap capacity (sorted and flushed when full)
  std::size_t deletion_items = 0;   // deletion buffer: the smallest items outside the heap
  std::size_t chunk_bytes = 0;      // allocation unit of internal sorted arrays
  std::size_t internal_arity = 0;   // internal arrays per level before they are merged
  std::size_t write_blocks = 0;     // write pool of the external merges
  std::size_t read_blocks_per_array = 0; // an external array's current block + read-ahead
  std::size_t external_arity = 0;   // external arrays per level before they are merged
  std::uint64_t pool_bytes = 0;     // chunks of internal arrays + external read buffers
  /// Items an external flush writes at least: the pool, less the read buffers of
  /// external_arity arrays, the partial chunks of the internal arrays and a heap's worth.
  std::uint64_t flush_items = 0;
  /// External levels an item passes through when at most expected_max_items are held
  /// (0: the queue stays in memory).
  unsigned external_levels = 0;
  bool feasible = false;            // the budget holds every mandatory part
  const char* problem = "";         // why not, for the planner's diagnostic

  /// Upper bound of the bytes read plus written by a queue that receives `inserts`
  /// pushes in total and never holds more than expected_max_items at once:
  ///   0                                   if expected_max_items fit into flush_items,
  ///   2 * s * I' * L + 2 * B * F * L      otherwise,
  /// with s = item_bytes, B = block_bytes, I' = inserts * (1 + deletion/insertion) (the
  /// deletion buffer's items may be put back once per insertion-heap flush),
  /// F = ceil(I' / flush_items) external flushes, and L = max(1, ceil(log_K F)) the
  /// levels of external arrays with K = external_arity (each level writes and reads an
  /// item once; every array rounds up to whole blocks).
  constexpr std::uint64_t io_bytes(std::uint64_t inserts) const {
    if (!feasible || expected_max_items <= flush_items || inserts == 0) return 0;
    const std::uint64_t moved = moved_items(inserts);
    const std::uint64_t flushes = moved / flush_items + (moved % flush_items != 0);
    const unsigned levels = levels_for(flushes, external_arity);
    return sat_add(sat_mul(sat_mul(2 * std::uint64_t(item_bytes), moved), levels),
                   sat_mul(sat_mul(2 * std::uint64_t(block_bytes), flushes), levels));
  }

  /// I' = items * (1 + deletion/insertion), rounded down as items * deletion / insertion.
  constexpr std::uint64_t moved_items(std::uint64_t items) const {
    return sat_add(items, sat_add(sat_mul(items / insertion_items, deletion_items),
                                  items % insertion_items * deletion_items / insertion_items));
  }
  /// max(1, ceil(log_K flushes)): levels of external arrays of arity K.
  static constexpr unsigned levels_for(std::uint64_t flushes, std::uint64_t arity) {
    unsigned levels = 1;
    for (std::uint64_t cap = arity; cap < flushes; cap *= arity) {
      ++levels;
      if (cap > ~std::uint64_t{0} / arity) break; // the next cap would pass any count
    }
    return levels;
  }
};

namespace pq_plan_detail {
constexpr std::uint64_t clamp(std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
constexpr std::uint64_t round_page(std::uint64_t bytes) { return (bytes + 4095) / 4096 * 4096; }
constexpr std::uint64_t floor_pow2(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}
} // namespace pq_plan_detail

/// Plans a queue of items of `item_bytes` within `memory_bytes`, for at most
/// `expected_max_items` items at once (0: unknown, plan for memory only), with external
/// blocks of `block_bytes` (a multiple of 4096). See pq_config for the result; a budget
/// too small for the mandatory parts gives feasible == false and a reason in problem.
constexpr pq_config plan_priority_queue(std::uint64_t memory_bytes, std::uint64_t expected_max_items,
                                        std::size_t item_bytes, std::size_t block_bytes) {
  using namespace pq_plan_detail;
  pq_config c;
  c.memory_bytes = memory_bytes;
  c.expected_max_items = expected_max_items;
  c.item_bytes = item_bytes;
  c.block_bytes = block_bytes;
  if (item_bytes == 0 || block_bytes == 0 || block_bytes % 4096 != 0 || item_bytes > block_bytes) {
    c.problem = "block size must be a positive multiple of 4096 holding at least one item";
    return c;
  }
  const std::uint64_t M = memory_bytes, s = item_bytes, B = block_bytes;
  // Insertion heap: 1/32 of the budget, at most 1 MiB (it and its sort buffer stay in
  // the second-level cache), at least 64 items.
  c.insertion_items = static_cast<std::size_t>(clamp(M / 32 / s, 64, (1u << 20) / s));
  // Deletion buffer: a quarter of that, at most 256 KiB (a refill of 32768 8-byte items
  // is split between two cores).
  c.deletion_items = static_cast<std::size_t>(clamp(c.insertion_items / 4, 32, (256u << 10) / s));
  // Chunks: 1/2048 of the budget, 4 KiB .. 64 KiB, a power of two, at least 4 items.
  c.chunk_bytes = static_cast<std::size_t>(floor_pow2(clamp(M / 2048, 4096, 65536)));
  while (c.chunk_bytes < 4 * s) c.chunk_bytes *= 2;
  c.write_blocks = static_cast<std::size_t>(clamp(M / 32 / B, 2, 8));
  // Read buffers per external array: its current block and one read-ahead, or three
  // read-ahead blocks when the budget still holds eight such arrays in a quarter of it
  // (bulk pops consume blocks of one array back to back).
  c.read_blocks_per_array = 2;
  // The heap, its sort buffer and the deletion buffer are page-aligned: whole pages.
  // The heap is sorted into a scratch buffer of its size (radix sort).
  const std::uint64_t fixed = 2 * round_page(c.insertion_items * s) + round_page(c.deletion_items * s) +
                              c.write_blocks * B;
  if (fixed >= M) {
    c.problem = "memory budget smaller than the insertion heap, deletion buffer and write pool";
    return c;
  }
  c.pool_bytes = M - fixed;
  if (c.pool_bytes / 4 / (4 * B) >= 8) c.read_blocks_per_array = 4;
  // External arrays may take up to a quarter of the pool for their read buffers.
  const std::uint64_t per_array = c.read_blocks_per_array * B;
  std::uint64_t arrays = c.pool_bytes / 4 / per_array;
  if (arrays < 2) {
    c.problem = "memory budget holds fewer than two external arrays' read buffers (use smaller blocks)";
    return c;
  }
  c.external_arity = static_cast<std::size_t>(arrays > 64 ? 64 : arrays);
  // Partial chunks: at most two per internal array, plus a merge's slack. The arity of
  // internal levels is 16 unless that waste would take more than a quarter of the pool.
  const std::uint64_t ext_reserve = std::uint64_t(c.external_arity) * per_array;
  std::uint64_t waste = 0;
  for (std::size_t k = 16; k >= 2; k /= 2) {
    unsigned int_levels = 1;
    for (std::uint64_t sz = c.insertion_items; sz * k * s < c.pool_bytes; sz *= k) ++int_levels;
    waste = (2 * k * int_levels + 3 * k + 8) * c.chunk_bytes;
    c.internal_arity = k;
    if (waste <= c.pool_bytes / 4) break;
  }
  if (c.pool_bytes <= waste + ext_reserve + 2 * c.insertion_items * s) {
    c.problem = "memory budget too small for the internal arrays (use smaller blocks or more memory)";
    return c;
  }
  c.flush_items = (c.pool_bytes - waste - ext_reserve - c.insertion_items * s) / s;
  c.feasible = true;
  if (expected_max_items > c.flush_items) {
    const std::uint64_t moved = c.moved_items(expected_max_items);
    const std::uint64_t flushes = moved / c.flush_items + (moved % c.flush_items != 0);
    c.external_levels = pq_config::levels_for(flushes, c.external_arity);
  }
  return c;
}

/// The configuration in one line, exact numbers: what `flowc explain` and a program's
/// --plan print for a queue (one text, so they can be compared).
inline std::string describe(const pq_config& c) {
  if (!c.feasible) return std::string("not feasible: ") + c.problem;
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  return "blocks of " + n(c.block_bytes) + " bytes, insertion heap " + n(c.insertion_items) + " items, deletion buffer " +
         n(c.deletion_items) + " items, chunks of " + n(c.chunk_bytes) + " bytes, internal arity " + n(c.internal_arity) +
         ", pool " + n(c.pool_bytes) + " bytes, write pool " + n(c.write_blocks) + " blocks, " +
         n(c.read_blocks_per_array) + " read blocks per external array, external arity " + n(c.external_arity) +
         ", flush " + n(c.flush_items) + " items, " + n(c.external_levels) + " external levels";
}

} // namespace flow::containers
