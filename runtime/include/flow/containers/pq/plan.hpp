#pragma once
// Parameters of the external priority queue from a byte budget: the job of STXXL's
// PRIORITY_QUEUE_GENERATOR, as a plain constexpr function the compiler's planner calls
// at compile time (and the queue calls at run time), with the I/O volume bound the
// estimator prints. No dependency on the rest of the runtime; describe() is compiled
// once, in the planner library (src/plan/pq_plan.cpp).
//
//   constexpr auto cfg = flow::containers::plan_priority_queue(256 << 20, 1 << 27, 8, 1 << 20);
//   static_assert(cfg.feasible);
//   flow::containers::priority_queue<u64> q(cfg);
//   std::uint64_t bound = cfg.io_bytes(pushes, peak); // read + written for n pushes, at most peak held
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "flow/plan/saturating.hpp"

namespace flow::containers {

using plan::sat_add; // counts up to 2^63 give bounds of at most 2^64 - 1, no wrap
using plan::sat_mul;
using plan::saturated;

struct pq_push_pop_io;

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

  /// The I/O of a queue with `pushes` pushes that holds at most `peak` items at once
  /// (0, or not less than pushes: all of them at once). See pq_queue_io below.
  constexpr pq_push_pop_io io(std::uint64_t pushes, std::uint64_t peak) const;
  /// Bytes read plus written: io(pushes, peak).bytes.
  constexpr std::uint64_t io_bytes(std::uint64_t pushes, std::uint64_t peak) const;
};

/// What the queue's own rules make it do with n pushes followed by n pops (the model of
/// pq_config::io_bytes). Every external array's blocks are written once and read once
/// (a merge or the pops read each block exactly once), so bytes = 2 * block_bytes * blocks.
struct pq_push_pop_io {
  std::uint64_t heap_loads_per_flush = 0; // heap flushes per external flush with no external array
  std::uint64_t external_flushes = 0;     // internal arrays + heap merged into a level-0 array
  std::uint64_t flushed_items = 0;        // items those flushes write (the rest stays in memory)
  unsigned levels = 0;                    // external levels the first-written item passes
  std::uint64_t blocks = 0;               // blocks written (each is read once)
  std::uint64_t bytes = 0;                // read + written
};

namespace pq_plan_detail {

/// How many heap flushes, counted from an external flush, come before the next external
/// flush (that one included), as a function of the chunks the pool has. flush_heap keeps
/// the sorted heap (ch = ceil(h/ci) chunks) in memory while
/// `pool_chunks - used >= ch + 2 + slack`; `used`, after k heap flushes, is the internal
/// arrays' chunks: k written in base internal_arity, level j's arrays of h * arity^j items
/// taking w_j = ceil(h * arity^j / ci) chunks each (a merge of arity arrays saves their
/// partial chunks). The external flush comes at the first k with used(k) > T =
/// pool_chunks - ch - 2 - slack and writes k + 1 heaps' worth. (The cascade's own check,
/// slack chunks before a merge, always holds after such an add.) `used` is not monotone
/// in k when merges save chunks, so the first k is found digit by digit from the top.
struct heap_fill {
  std::uint64_t ch = 0, reserve = 0; // a heap's chunks; ch + 2 + slack
  std::uint64_t w[64] = {}, pow[64] = {}, below[64] = {}; // below[j]: sum_{i<j} (arity-1) w_i
  unsigned top = 0;

  constexpr heap_fill(const pq_config& c, std::uint64_t most_chunks) {
    const std::uint64_t ci = c.chunk_bytes / c.item_bytes, h = c.insertion_items, a = c.internal_arity;
    ch = (h + ci - 1) / ci;
    reserve = ch + 2 + 3 * a + 8;
    // Levels until one array alone passes any T the pool allows.
    for (std::uint64_t items = h, p = 1;; items = sat_mul(items, a), p = sat_mul(p, a)) {
      w[top] = items / ci + (items % ci != 0);
      pow[top] = p;
      if (w[top] > most_chunks || top == 63) break;
      ++top;
    }
    for (unsigned j = 1; j <= top; ++j) below[j] = sat_add(below[j - 1], sat_mul(a - 1, w[j - 1]));
  }
  constexpr std::uint64_t loads(std::uint64_t pool_chunks, std::uint64_t arity) const {
    if (pool_chunks < reserve) return 1; // not even one heap fits: every heap goes out
    const std::uint64_t t = pool_chunks - reserve;
    std::uint64_t used = 0, k = 0;
    for (unsigned j = top + 1; j-- > 0;) {
      // The smallest digit that still lets some completion exceed T.
      const std::uint64_t floor = sat_add(used, below[j]);
      std::uint64_t d = floor > t ? 0 : (t - floor) / w[j] + 1;
      if (d > arity - 1) d = arity - 1;
      used = sat_add(used, sat_mul(d, w[j]));
      k = sat_add(k, sat_mul(d, pow[j]));
    }
    return sat_add(k, 1);
  }
};

/// sums[j][e] = sum over i < K^j of table[e + digit sum of i in base K], for
/// e <= (levels - 1 - j) * (K - 1): what the K^j flushes under a prefix of digit sum e
/// add up to. sums[j] is sums[j-1] summed over a window of K (saturating at 2^64 - 1).
constexpr std::vector<std::vector<std::uint64_t>> subtree_sums(const std::vector<std::uint64_t>& table,
                                                               unsigned levels, std::uint64_t K) {
  std::vector<std::vector<std::uint64_t>> sums(levels);
  sums[0] = table;
  for (unsigned j = 1; j < levels; ++j) {
    const auto& prev = sums[j - 1];
    auto& cur = sums[j];
    cur.resize(prev.size() - (K - 1));
    unsigned __int128 window = 0; // prev[x .. x + K - 1]: at most 64 values below 2^64
    for (std::size_t i = 0; i + 1 < K; ++i) window += prev[i];
    for (std::size_t x = 0; x < cur.size(); ++x) {
      window += prev[x + K - 1];
      cur[x] = window > saturated ? saturated : static_cast<std::uint64_t>(window);
      window -= prev[x];
    }
  }
  return sums;
}

} // namespace pq_plan_detail

/// The queue's I/O for n pushes, then n pops (pop or bulk pops), from its own rules:
///  - The insertion heap (h items) is flushed when a push finds it full: floor((n-1)/h)
///    heap flushes; the last heap's items never leave memory.
///  - A heap flush either keeps the sorted heap as an internal array or, when the pool is
///    short of chunks (heap_fill), merges every internal array and the heap into one
///    external array of level 0. With E external arrays alive the pool has
///    (pool_bytes - E * read_blocks_per_array * block_bytes) / chunk_bytes chunks, so a
///    flush's size g(E) (in heaps) depends on E.
///  - When a level holds external_arity = K arrays they are merged into one of the next
///    level: after i external flushes, E is the digit sum of i in base K, and a merge of
///    level j happens after every K^j-th flush, writing the items of those K^j flushes.
///  - After the last push nothing is written: pops only read, every block once.
/// So: F = the most flushes with sum_{i<F} g(ds(i)) <= heap flushes; level 0 writes
/// sum_{i<F} ceil(h g(ds(i)) / block items) blocks; level j writes floor(F / K^j) merges
/// of the flushes before floor(F / K^j) * K^j (each rounded up to whole blocks). The sums
/// go over sub-trees of K^j flushes that share a prefix (subtree_sums), never over
/// flushes: O(levels^2 * K) steps, whatever n. Not modelled: the "crowded" early merge
/// when the read buffers pass half the pool (three or more levels; K <= pool/4 / buffers
/// keeps two levels' arrays below it).
constexpr pq_push_pop_io push_pop_io(const pq_config& c, std::uint64_t n, bool with_blocks = true) {
  using namespace pq_plan_detail;
  pq_push_pop_io r;
  if (!c.feasible || n <= c.insertion_items) return r;
  const std::uint64_t h = c.insertion_items, K = c.external_arity;
  const std::uint64_t block_items = c.block_bytes / c.item_bytes;
  const std::uint64_t heap_flushes = (n - 1) / h;
  const std::uint64_t read_buffers = std::uint64_t(c.read_blocks_per_array) * c.block_bytes;
  // Digits of the flush counter: K^levels > heap_flushes >= F.
  unsigned levels = 1;
  for (std::uint64_t span = K; span <= heap_flushes; span = sat_mul(span, K)) ++levels;
  // g(E) and each flush's blocks for every E the counter can show (digit sums < levels*K).
  const std::uint64_t most_alive = std::uint64_t(levels) * (K - 1);
  const heap_fill fill(c, c.pool_bytes / c.chunk_bytes);
  std::vector<std::uint64_t> loads(most_alive + 1), flush_blocks(most_alive + 1);
  for (std::uint64_t e = 0; e <= most_alive; ++e) {
    const std::uint64_t buffers = sat_mul(e, read_buffers);
    const std::uint64_t chunks = c.pool_bytes > buffers ? (c.pool_bytes - buffers) / c.chunk_bytes : 0;
    loads[e] = fill.loads(chunks, c.internal_arity);
    const std::uint64_t items = sat_mul(loads[e], h);
    flush_blocks[e] = items / block_items + (items % block_items != 0);
  }
  r.heap_loads_per_flush = loads[0];
  const auto load_sums = subtree_sums(loads, levels, K);
  // F digit by digit from the top: take whole sub-trees of flushes while they fit.
  std::vector<std::uint64_t> digits(levels), loads_at(levels); // loads_at[j]: taken at level j
  std::uint64_t taken = 0, e = 0;
  for (unsigned j = levels; j-- > 0;) {
    std::uint64_t t = 0;
    for (; t + 1 < K; ++t) { // K sub-trees would be one of the level above
      const std::uint64_t more = load_sums[j][e + t];
      if (sat_add(taken, more) > heap_flushes) break;
      taken += more;
      loads_at[j] += more;
    }
    digits[j] = t;
    e += t;
  }
  std::uint64_t flushes = 0;
  for (unsigned j = levels; j-- > 0;) flushes = sat_add(sat_mul(flushes, K), digits[j]);
  if (flushes == 0) return r;
  r.external_flushes = flushes;
  r.flushed_items = sat_mul(taken, h);
  r.levels = levels;
  while (digits[r.levels - 1] == 0) --r.levels; // the top digit of F: its merges' level
  if (!with_blocks) return r;
  // Level 0: the same sub-trees, in blocks.
  const auto block_sums = subtree_sums(flush_blocks, levels, K);
  e = 0;
  for (unsigned j = levels; j-- > 0;) {
    for (std::uint64_t t = 0; t < digits[j]; ++t) r.blocks = sat_add(r.blocks, block_sums[j][e + t]);
    e += digits[j];
  }
  // Level j's floor(F / K^j) merges each write the items of K^j flushes, rounded up to
  // whole blocks (at most block_items - 1 items of padding per merge).
  std::uint64_t merges = flushes, items_above = 0;
  for (unsigned j = levels; j-- > 1;) items_above += loads_at[j];
  for (unsigned j = 1; j < r.levels; ++j) {
    merges /= K;
    const std::uint64_t items = sat_mul(items_above, h);
    r.blocks = sat_add(r.blocks, sat_add(items, sat_mul(merges, block_items - 1)) / block_items);
    items_above -= loads_at[j];
  }
  r.bytes = sat_mul(sat_mul(2, c.block_bytes), r.blocks);
  return r;
}

constexpr pq_push_pop_io pq_config::io(std::uint64_t pushes, std::uint64_t peak) const {
  // All pushes at once (the static assumption): exact for n pushes then n pops (pop and
  // top: the key order changes which items are merged, never how many; pops only read).
  // bulk_pop and the limit loop sort the insertion heap into the arrays first, which may
  // add one external flush when the pool is full at the last push.
  //
  // A lower peak (measured by a calibration run) that never fills the internal arrays
  // (flush_items: what an external flush writes at least) means no I/O at all. A larger
  // one gets the all-at-once value: no function of (pushes, peak) below it bounds every
  // order (pushing a flush's worth and popping it again, over and over, writes nearly
  // every push whatever the peak). It is an upper bound for interleaved orders in
  // test/runtime/containers/pq_io_model_test.cpp: random keys at two pushes per pop move 0.5 of
  // it, time-forward keys (MIS) 0.35 to 0.8, and less than the peak pushed and popped
  // would say for the latter (up to 2.7 times that).
  if (peak != 0 && peak < pushes && peak <= flush_items) return {};
  return push_pop_io(*this, pushes);
}
constexpr std::uint64_t pq_config::io_bytes(std::uint64_t pushes, std::uint64_t peak) const {
  return io(pushes, peak).bytes;
}

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
    // Saturating: near 2^64 bytes of pool (a least-budget search of a queue of 2^57
    // items goes there) sz * k * s wrapped around and the loop ran for minutes.
    for (std::uint64_t sz = c.insertion_items; sat_mul(sat_mul(sz, k), s) < c.pool_bytes; sz = sat_mul(sz, k))
      ++int_levels;
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
  c.external_levels = push_pop_io(c, expected_max_items, /*with_blocks=*/false).levels;
  return c;
}

/// The configuration in one line, exact numbers: what `flowc explain` and a program's
/// --plan print for a queue (one text, so they can be compared).
std::string describe(const pq_config& c);

} // namespace flow::containers
