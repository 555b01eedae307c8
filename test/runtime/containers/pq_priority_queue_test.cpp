// The external priority queue (containers/priority_queue.hpp) against std::priority_queue:
// random interleavings (including the thesis' 1/3 push, 2/3 pop mix), monotone
// time-forward use, many equal keys, items of 8, 16 and 24 bytes, sizes that cross the
// internal and the external levels (tiny budgets, 4 KiB blocks), memory and O_DIRECT
// disks, the byte budget, the bulk and limit interfaces, the planner, and the loser tree
// on its own.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/parallel.hpp"
#include "flow/containers/priority_queue.hpp"
#include "flow/defaults.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/stats.hpp"
#include "flow/stream/sources.hpp"
#include "test_support.hpp"

namespace {

using flow::containers::plan_priority_queue;
using flow::containers::pq_config;
using flow::containers::priority_queue;
using u64 = std::uint64_t;

// Items of 8, 16 and 24 bytes: a key (compared) and a payload (an id that makes every
// item distinct, so lost or duplicated items are seen even among equal keys).
template <std::size_t N> struct item {
  u64 key;
  u64 payload[(N - 8) / 8];
};
template <> struct item<8> {
  u64 key;
};
static_assert(sizeof(item<16>) == 16 && sizeof(item<24>) == 24 && sizeof(item<8>) == 8);

template <std::size_t N> item<N> make_item(u64 key, u64 id) {
  item<N> x{};
  x.key = key;
  if constexpr (N > 8) {
    for (auto& p : x.payload) p = id;
  } else {
    (void)id;
  }
  return x;
}
template <std::size_t N> u64 id_of(const item<N>& x) {
  if constexpr (N > 8) return x.payload[0];
  return x.key;
}

struct key_less {
  template <class T> bool operator()(const T& a, const T& b) const { return a.key < b.key; }
};
struct key_greater { // for std::priority_queue (a max-heap): top = smallest key
  template <class T> bool operator()(const T& a, const T& b) const { return a.key > b.key; }
};

// Orders with a radix key, as flowc generates them (algo/sort_traits.hpp): the queue
// then sorts its insertion heap by radix. key_prefix_less's key is the top 4 bits only
// (not total: items with equal keys are put in order by the comparator).
template <class T> struct key_total_less : key_less {
  using key_type = u64;
  static key_type key(const T& v) { return v.key; }
  static constexpr bool key_is_total = true;
  static T min_value() { return make_item<sizeof(T)>(0, 0); }
  static T max_value() { return make_item<sizeof(T)>(~0ull, 0); }
};
template <class T> struct key_prefix_less : key_total_less<T> {
  using key_type = std::uint8_t;
  static key_type key(const T& v) { return static_cast<key_type>(v.key >> 60); }
  static constexpr bool key_is_total = false;
};
static_assert(flow::containers::pq::radix_sortable<item<24>, key_total_less<item<24>>>);
static_assert(flow::containers::pq::radix_sortable<item<16>, key_prefix_less<item<16>>>);
static_assert(!flow::containers::pq::radix_sortable<item<16>, key_less>);

constexpr std::size_t small_block = 4096;

template <std::size_t N, class Order = key_less> using small_pq = priority_queue<item<N>, Order>;

/// Pops one item from both queues and checks the keys agree; remembers the ids.
template <class Q, class R, class T>
void pop_both(Q& q, R& ref, std::vector<u64>& got, std::vector<u64>& want, T*) {
  ASSERT_FALSE(q.empty());
  const T a = q.top();
  const T b = ref.top();
  ASSERT_EQ(a.key, b.key);
  got.push_back(id_of(a));
  want.push_back(id_of(b));
  q.pop();
  ref.pop();
}

/// Pops one scalar from `q` and from its std reference after checking their tops agree.
template <class Q, class R> void pop_equal_tops(Q& q, R& ref) {
  ASSERT_EQ(q.top(), ref.top());
  q.pop();
  ref.pop();
}

/// Pops both to the end, checking every top (pop_equal_tops), then that `q` is empty too.
template <class Q, class R> void pop_all_equal_tops(Q& q, R& ref) {
  while (!ref.empty()) {
    ASSERT_NO_FATAL_FAILURE(pop_equal_tops(q, ref));
  }
  EXPECT_TRUE(q.empty());
}

/// A queue under test and its std reference, fed the same items: each new item gets the
/// next id, so that lost or duplicated items show.
template <std::size_t N, class Order = key_less> struct pq_and_reference {
  using T = item<N>;
  pq_and_reference(flow::mng::block_manager& bm, u64 budget) : q(budget, 0, small_block, bm) {}
  /// A new item with `key` (and the next id).
  T make(u64 key) { return make_item<N>(key, next_id++); }
  /// A new item with `key`, pushed to both.
  void push(u64 key) {
    const T x = make(key);
    q.push(x);
    ref.push(x);
  }

  /// Both, as references: `auto [q, ref] = both.queues();`.
  auto queues() { return std::tie(q, ref); }

  small_pq<N, Order> q;
  std::priority_queue<T, std::vector<T>, key_greater> ref;
  u64 next_id = 1;
};

/// Runs `ops` random operations: push with probability push_percent, else pop.
/// Keys are drawn from [0, key_range). Checks every top against the reference and that
/// the multiset of popped ids is the same (no item lost or duplicated).
template <std::size_t N, class Order = key_less>
void random_run(flow::mng::block_manager& bm, u64 budget, u64 prefill, u64 ops, int push_percent,
                u64 key_range, u64 seed, bool check_external = true) {
  using T = item<N>;
  pq_and_reference<N, Order> both(bm, budget);
  auto [q, ref] = both.queues();
  std::mt19937_64 rng(seed);
  std::vector<u64> got, want;
  for (u64 i = 0; i < prefill; ++i) both.push(rng() % key_range);
  for (u64 i = 0; i < ops; ++i) {
    if (ref.empty() || static_cast<int>(rng() % 100) < push_percent) {
      both.push(rng() % key_range);
    } else {
      pop_both(q, ref, got, want, static_cast<T*>(nullptr));
      if (::testing::Test::HasFatalFailure()) return;
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  if (check_external) {
    EXPECT_GT(q.stats().external_flushes, 0u) << "test did not reach external memory";
  }
  while (!ref.empty()) {
    pop_both(q, ref, got, want, static_cast<T*>(nullptr));
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_TRUE(q.empty());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  if constexpr (N > 8) {
    EXPECT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end());
  }
}

class PqTest : public ::testing::Test {
protected:
  flow::mng::block_manager bm{flow::test::memory_config()};
};

// --- planner ------------------------------------------------------------------------------

// --- the loser tree ------------------------------------------------------------------------

TEST(PqLoserTree, MergesSegmentedSourcesInPiecesAsTheyRunDry) {
  // 1..13 sources (not powers of two too), some empty, of random lengths, each cut into
  // segments of random size (as chunks and blocks arrive); the merge is taken in pieces
  // of random size. Output: the sorted union (std::sort as the reference); after each
  // piece, every source's cursor: the items it gave so far.
  std::mt19937_64 rng(12);
  for (int round = 0; round < 300; ++round) {
    const std::size_t sources = 1 + rng() % 13;
    std::vector<std::vector<u64>> data(sources);
    std::vector<std::vector<std::size_t>> cuts(sources); // segment ends
    std::vector<u64> all;
    for (std::size_t i = 0; i < sources; ++i) {
      data[i].resize(rng() % 4 == 0 ? 0 : rng() % 200);
      for (u64& x : data[i]) x = rng() % 50; // many equal keys
      std::sort(data[i].begin(), data[i].end());
      for (std::size_t e = 0; e < data[i].size();) cuts[i].push_back(e = std::min(data[i].size(), e + 1 + rng() % 40));
      all.insert(all.end(), data[i].begin(), data[i].end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::size_t> seg(sources, 0); // index of each source's current segment
    auto segment_of = [&](std::size_t i, std::size_t c) {
      const std::size_t b = c == 0 ? 0 : cuts[i][c - 1];
      return flow::containers::pq::segment<u64>{data[i].data() + b, data[i].data() + cuts[i][c]};
    };
    auto next = [&](std::size_t i, flow::containers::pq::segment<u64>& s) {
      if (seg[i] + 1 >= cuts[i].size()) return false;
      s = segment_of(i, ++seg[i]);
      return true;
    };
    std::vector<flow::containers::pq::segment<u64>> first(sources);
    for (std::size_t i = 0; i < sources; ++i) {
      if (!cuts[i].empty()) first[i] = segment_of(i, 0);
    }
    flow::containers::pq::loser_tree<u64, std::less<u64>> tree;
    tree.start(std::span<const flow::containers::pq::segment<u64>>(first), next);
    std::vector<u64> out(all.size());
    for (std::size_t done = 0; done < all.size();) {
      const std::size_t m = std::min<std::size_t>(all.size() - done, rng() % 64);
      tree.merge(out.data() + done, m, next);
      done += m;
      std::size_t given = 0; // items the sources say they gave
      for (std::size_t i = 0; i < sources; ++i) {
        const auto& c = tree.cursor(i);
        given += c.cur == nullptr ? data[i].size() : static_cast<std::size_t>(c.cur - data[i].data());
      }
      ASSERT_EQ(given, done) << "round " << round;
    }
    EXPECT_TRUE(tree.done());
    ASSERT_EQ(out, all) << "round " << round;
  }
}

TEST(PqPlan, IsConstexprAndFitsTheBudget) {
  constexpr pq_config c = plan_priority_queue(256ull << 20, 1ull << 27, 8, 1u << 20);
  static_assert(c.feasible);
  static_assert(c.io_bytes(1ull << 27, 1ull << 27) > 0);
  EXPECT_GE(c.insertion_items, 1024u);
  EXPECT_GE(c.internal_arity, 2u);
  EXPECT_GE(c.external_arity, 2u);
  const u64 pages = 2 * ((c.insertion_items * 8 + 4095) / 4096 * 4096) +
                    (c.deletion_items * 8 + 4095) / 4096 * 4096;
  EXPECT_LE(pages + c.write_blocks * c.block_bytes + c.pool_bytes, c.memory_bytes);
  EXPECT_EQ(c.external_levels, 1u);
}

TEST(PqPlan, IoGrowsWithPushesAndIsZeroInMemory) {
  constexpr pq_config small = plan_priority_queue(64ull << 20, 1000, 8, 1u << 20);
  EXPECT_EQ(small.io_bytes(1000, 1000), 0u);
  const pq_config c = plan_priority_queue(64ull << 20, 1ull << 26, 8, 1u << 20);
  ASSERT_TRUE(c.feasible);
  const u64 a = c.io_bytes(1ull << 24, 1ull << 24), b = c.io_bytes(1ull << 26, 1ull << 26);
  EXPECT_GT(a, 0u);
  EXPECT_GT(b, a);
  // One write and one read of every item but those still in the pool at the last push,
  // at most a few levels' worth (test/runtime/containers/pq_io_model_test.cpp checks it exactly).
  EXPECT_GE(b, 2 * 8 * ((1ull << 26) - c.pool_bytes / 8));
  EXPECT_LE(b, 2ull * 8 * (1ull << 26) * c.external_levels + (64ull << 20));
}

TEST(PqPlan, TooSmallBudgetIsReportedNotThrown) {
  constexpr pq_config c = plan_priority_queue(1u << 20, 1000, 8, 1u << 20);
  static_assert(!c.feasible);
  EXPECT_STRNE(c.problem, "");
  flow::mng::block_manager bm(flow::test::memory_config());
  EXPECT_THROW((priority_queue<u64>(c, bm)), std::invalid_argument);
  const pq_config bad_block = plan_priority_queue(64u << 20, 0, 8, 1000);
  EXPECT_FALSE(bad_block.feasible);
}

// --- classic interface --------------------------------------------------------------------

TEST_F(PqTest, SmallQueueInMemoryMatchesStd) {
  priority_queue<u64> q(1u << 20, 0, small_block, bm);
  std::priority_queue<u64, std::vector<u64>, std::greater<u64>> ref;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    if (ref.empty() || rng() % 3) {
      const u64 v = rng() % 1000;
      q.push(v);
      ref.push(v);
    } else {
      ASSERT_NO_FATAL_FAILURE(pop_equal_tops(q, ref));
    }
  }
  pop_all_equal_tops(q, ref);
  EXPECT_EQ(q.stats().external_flushes, 0u);
  EXPECT_THROW(q.pop(), std::out_of_range);
}

TEST_F(PqTest, PushAllPopAllCrossesExternalLevels8) { random_run<8>(bm, 512u << 10, 300000, 0, 0, ~0ull, 2); }
TEST_F(PqTest, PushAllPopAllCrossesExternalLevels16) { random_run<16>(bm, 512u << 10, 150000, 0, 0, ~0ull, 3); }
TEST_F(PqTest, PushAllPopAllCrossesExternalLevels24) { random_run<24>(bm, 512u << 10, 100000, 0, 0, ~0ull, 4); }

TEST_F(PqTest, ThesisMixOneThirdPushTwoThirdsPop8) {
  random_run<8>(bm, 512u << 10, 200000, 300000, 33, ~0ull, 5);
}
TEST_F(PqTest, ThesisMixOneThirdPushTwoThirdsPop24) {
  random_run<24>(bm, 512u << 10, 100000, 150000, 33, ~0ull, 6);
}
TEST_F(PqTest, RandomInterleavingHalfHalf16) { random_run<16>(bm, 512u << 10, 50000, 400000, 55, ~0ull, 7); }

TEST_F(PqTest, ManyEqualKeysAcrossExternalLevels) {
  // Four distinct keys among 200000 items: every merge and every block boundary meets
  // runs of equal keys; every item (by id) must come out exactly once.
  random_run<16>(bm, 512u << 10, 200000, 100000, 40, 4, 8);
  random_run<24>(bm, 512u << 10, 100000, 0, 0, 1, 9); // all keys equal
}

TEST_F(PqTest, OrdersWithARadixKeyAcrossExternalLevels) {
  // The insertion heap is radix sorted by the order's key: a total key (with equal keys)
  // and a 4-bit prefix key whose ties the comparator decides.
  random_run<24, key_total_less<item<24>>>(bm, 512u << 10, 100000, 100000, 40, 1000, 10);
  random_run<24, key_total_less<item<24>>>(bm, 512u << 10, 60000, 0, 0, ~0ull, 12); // every digit
  random_run<16, key_prefix_less<item<16>>>(bm, 512u << 10, 150000, 100000, 40, ~0ull, 11);
}

TEST_F(PqTest, ExternalLevelMergesAndBothCores) {
  // Enough items for more flushes than external_arity: external arrays are merged into
  // the next level; large merges run split between the two threads.
  const pq_config cfg = plan_priority_queue(512u << 10, 0, 8, small_block);
  small_pq<8> q(cfg, bm);
  std::priority_queue<u64, std::vector<u64>, std::greater<u64>> ref;
  std::mt19937_64 rng(18);
  const u64 n = cfg.flush_items * 4 * (cfg.external_arity + 3); // ample
  for (u64 i = 0; i < n && q.stats().external_flushes <= cfg.external_arity + 1; ++i) {
    const u64 v = rng() % (n / 8);
    q.push(make_item<8>(v, 0));
    ref.push(v);
  }
  EXPECT_GT(q.stats().external_merges, 0u);
  EXPECT_GT(q.stats().internal_merges, 0u);
  if (flow::containers::pq::parallel_available()) {
    EXPECT_GT(q.stats().parallel_pieces, 0u);
  }
  std::vector<item<8>> out;
  while (!ref.empty()) {
    if (ref.size() % 3 == 0) {
      q.bulk_pop(out, 40000);
      for (const auto& x : out) {
        ASSERT_EQ(x.key, ref.top());
        ref.pop();
      }
    } else {
      ASSERT_EQ(q.top().key, ref.top());
      q.pop();
      ref.pop();
    }
  }
  EXPECT_TRUE(q.empty());
}

TEST_F(PqTest, LargerBudgetSplitsFlushesAndRefillsBetweenCores) {
  // 4 MiB: external flushes and deletion-buffer refills are large enough to be split.
  random_run<8>(bm, 4u << 20, 1200000, 600000, 33, ~0ull, 20);
  random_run<24>(bm, 4u << 20, 400000, 200000, 40, 1000, 21);
}

TEST_F(PqTest, DescendingOrderOfSmallScalars) {
  // std::greater on u32: the radix sort's descending path, top = largest.
  priority_queue<std::uint32_t, std::greater<std::uint32_t>> q(512u << 10, 0, small_block, bm);
  std::priority_queue<std::uint32_t> ref;
  std::mt19937 rng(19);
  for (int i = 0; i < 300000; ++i) {
    const std::uint32_t v = rng() % 100000;
    q.push(v);
    ref.push(v);
    if (i % 4 == 3) {
      ASSERT_NO_FATAL_FAILURE(pop_equal_tops(q, ref));
    }
  }
  ASSERT_NO_FATAL_FAILURE(pop_all_equal_tops(q, ref));
  EXPECT_GT(q.stats().external_flushes, 0u);
}

TEST_F(PqTest, MonotoneTimeForwardUse) {
  // Time-forward processing: each pop may push items with keys >= the popped key.
  using T = item<16>;
  pq_and_reference<16> both(bm, 512u << 10);
  auto [q, ref] = both.queues();
  std::mt19937_64 rng(10);
  for (int i = 0; i < 50000; ++i) both.push(rng() % 100000);
  u64 last = 0, pops = 0;
  while (!ref.empty()) {
    const T a = q.top(), b = ref.top();
    ASSERT_EQ(a.key, b.key);
    ASSERT_GE(a.key, last);
    last = a.key;
    q.pop();
    ref.pop();
    ++pops;
    const int children = pops < 150000 ? static_cast<int>(rng() % 3) : 0;
    for (int c = 0; c < children; ++c) both.push(last + rng() % 5000);
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(q.stats().external_flushes, 0u);
}

TEST_F(PqTest, AscendingAndDescendingPushes) {
  small_pq<8> q(512u << 10, 0, small_block, bm);
  const u64 n = 200000;
  for (u64 i = 0; i < n; ++i) q.push(make_item<8>(i, 0));
  for (u64 i = 0; i < n / 2; ++i) {
    ASSERT_EQ(q.top().key, i);
    q.pop();
  }
  for (u64 i = n; i-- > n / 2;) q.push(make_item<8>(i, 0)); // descending, duplicates
  for (u64 i = n / 2; i < n; ++i) {
    for (int twice = 0; twice < 2; ++twice) {
      ASSERT_EQ(q.top().key, i);
      q.pop();
    }
  }
  EXPECT_TRUE(q.empty());
}

TEST_F(PqTest, NeverExceedsItsBudget) {
  const u64 budget = 1u << 20;
  const u64 base = flow::io::buffer_memory::current();
  flow::io::buffer_memory::reset_peak();
  {
    small_pq<8> q(budget, 0, small_block, bm);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 400000; ++i) q.push(make_item<8>(rng(), 0));
    EXPECT_LE(q.buffer_bytes(), budget);
    for (int i = 0; i < 300000; ++i) {
      if (rng() % 3 == 0) q.push(make_item<8>(rng(), 0));
      else q.pop();
    }
    std::vector<item<8>> out;
    while (q.bulk_pop(out, 20000)) {
    }
    EXPECT_TRUE(q.empty());
    EXPECT_GT(q.stats().external_flushes, 2u);
  }
  EXPECT_LE(flow::io::buffer_memory::peak() - base, budget);
  EXPECT_EQ(flow::io::buffer_memory::current(), base);
}

TEST_F(PqTest, IoVolumeWithinThePlannedBound) {
  const u64 budget = 1u << 20, n = 500000;
  const pq_config cfg = plan_priority_queue(budget, n, 8, small_block);
  flow::io::scoped_stats phase;
  {
    small_pq<8> q(cfg, bm);
    std::mt19937_64 rng(12);
    for (u64 i = 0; i < n; ++i) q.push(make_item<8>(rng(), 0));
    while (!q.empty()) q.pop();
  }
  const auto t = phase.elapsed().total();
  EXPECT_GT(t.write_bytes, n * 8 / 2);
  EXPECT_LE(t.read_bytes + t.write_bytes, cfg.io_bytes(n, n));
}

TEST(PqDirect, RandomRunOnODirectFile) {
  flow::test::scratch_dir dir;
  {
    flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
    random_run<8>(bm, 512u << 10, 150000, 150000, 33, ~0ull, 13);
    random_run<24>(bm, 512u << 10, 60000, 60000, 50, 16, 14);
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
  EXPECT_TRUE(dir.entries().empty());
}

// --- bulk interface -----------------------------------------------------------------------

TEST_F(PqTest, BulkPushAndBulkPopMatchStd) {
  using T = item<16>;
  pq_and_reference<16> both(bm, 512u << 10);
  auto [q, ref] = both.queues();
  std::mt19937_64 rng(15);
  std::vector<T> out, batch;
  std::vector<u64> got, want;
  for (int round = 0; round < 40; ++round) {
    const std::size_t pushes = rng() % 20000;
    q.bulk_push_begin(pushes);
    batch.clear();
    for (std::size_t i = 0; i < pushes; ++i) {
      const T x = both.make(rng() % 50000);
      if (i % 2) q.bulk_push(x);
      else batch.push_back(x);
      ref.push(x);
    }
    q.bulk_push(std::span<const T>(batch));
    q.bulk_push_end();
    ASSERT_EQ(q.size(), ref.size());
    const std::size_t k = rng() % 25000;
    const std::size_t n = q.bulk_pop(out, k);
    ASSERT_EQ(n, std::min<std::size_t>(k, ref.size()));
    for (const T& x : out) {
      ASSERT_EQ(x.key, ref.top().key);
      got.push_back(id_of(x));
      want.push_back(id_of(ref.top()));
      ref.pop();
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  while (q.bulk_pop(out, 70000)) {
    for (const T& x : out) {
      ASSERT_EQ(x.key, ref.top().key);
      got.push_back(id_of(x));
      want.push_back(id_of(ref.top()));
      ref.pop();
    }
  }
  EXPECT_TRUE(ref.empty());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_GT(q.stats().external_flushes, 0u);
}

TEST_F(PqTest, BulkPopLimitStopsBelowTheLimit) {
  priority_queue<u64> q(512u << 10, 0, small_block, bm);
  std::mt19937_64 rng(16);
  std::multiset<u64> ref;
  for (int i = 0; i < 200000; ++i) {
    const u64 v = rng() % 1000000;
    q.push(v);
    ref.insert(v);
  }
  std::vector<u64> out;
  for (u64 limit = 1000; limit <= 1000000; limit += 37000) {
    for (;;) {
      const bool more = q.bulk_pop_limit(out, limit, 3000);
      for (u64 v : out) {
        ASSERT_LT(v, limit);
        ASSERT_EQ(v, *ref.begin());
        ref.erase(ref.begin());
      }
      ASSERT_EQ(more, !ref.empty() && *ref.begin() < limit);
      if (!more) break;
    }
  }
  EXPECT_EQ(q.size(), ref.size());
}

/// Pushes n values below `below` drawn from rng into q and into ref, its model.
void push_random(priority_queue<u64>& q, std::multiset<u64>& ref, int n, std::mt19937_64& rng, u64 below) {
  for (int i = 0; i < n; ++i) {
    const u64 v = rng() % below;
    q.push(v);
    ref.insert(v);
  }
}

/// Pops q to its end, each item the model's smallest; the model ends empty too.
void expect_drains_as(priority_queue<u64>& q, std::multiset<u64>& ref) {
  while (!q.empty()) {
    ASSERT_EQ(q.top(), *ref.begin());
    ref.erase(ref.begin());
    q.pop();
  }
  EXPECT_TRUE(ref.empty());
}

TEST_F(PqTest, LimitItemLoop) {
  // Bulk-parallel time forward processing: every item popped below the limit pushes a
  // successor at or above the limit.
  priority_queue<u64> q(512u << 10, 0, small_block, bm);
  std::multiset<u64> ref;
  std::mt19937_64 rng(17);
  push_random(q, ref, 100000, rng, 100000);
  for (u64 limit = 10000; limit <= 400000; limit += 10000) {
    q.limit_begin(limit, 5000);
    while (!q.limit_empty()) {
      const u64 x = q.limit_top();
      ASSERT_EQ(x, *ref.begin());
      ref.erase(ref.begin());
      q.limit_pop();
      if (x % 3) {
        const u64 y = limit + rng() % 50000;
        q.limit_push(y);
        ref.insert(y);
      }
    }
    EXPECT_THROW(q.limit_push(limit - 1), std::invalid_argument);
    q.limit_end();
    ASSERT_EQ(q.size(), ref.size());
  }
  expect_drains_as(q, ref);
}

TEST_F(PqTest, LimitEndPutsUnpoppedItemsBack) {
  priority_queue<u64> q(512u << 10, 0, small_block, bm);
  for (u64 i = 0; i < 10000; ++i) q.push(10000 - i);
  q.limit_begin(5000, 100);
  for (int i = 0; i < 50; ++i) q.limit_pop();
  q.limit_end();
  EXPECT_EQ(q.size(), 10000u - 50);
  for (u64 v = 51; v <= 10000; ++v) {
    ASSERT_EQ(q.top(), v);
    q.pop();
  }
}

// q.pop_below(limit) of a script: flow::stream::queue_below over the limit loop. push()
// takes only items at or after the limit while it runs (items before it would come out
// of order); top() and pop() throw; an item is taken once shown, so a loop that stops at
// it leaves the rest (and not it) in the queue. Across external arrays and bulks of 7.
TEST_F(PqTest, QueueBelowIsTheLimitLoopAsASource) {
  priority_queue<u64> q(512u << 10, 0, small_block, bm);
  std::multiset<u64> ref;
  std::mt19937_64 rng(5);
  push_random(q, ref, 200000, rng, 1000000);
  {
    auto s = flow::stream::queue_below(q, u64{300000}, 7 * sizeof(u64), "script.flow:3:10");
    for (; !s.empty(); ++s) {
      ASSERT_EQ(*s, *ref.begin());
      ref.erase(ref.begin());
      if (*s % 5 == 0) {
        q.push(*s + 300000); // after the limit: taken by a later batch
        ref.insert(*s + 300000);
      }
    }
    EXPECT_THROW(q.push(299999), std::invalid_argument);
    EXPECT_THROW(q.top(), std::logic_error);
    EXPECT_THROW(q.pop(), std::logic_error);
    std::string message;
    try {
      q.push(1);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("script.flow:3:10"), std::string::npos) << message;
  }
  ASSERT_EQ(q.size(), ref.size());
  {
    auto s = flow::stream::queue_below(q, u64{700000}, 7 * sizeof(u64));
    for (int i = 0; i < 1000 && !s.empty(); ++i, ++s) {
      ASSERT_EQ(*s, *ref.begin());
      ref.erase(ref.begin());
      if (i == 999) break; // shown, so taken; the rest stays
    }
  }
  ASSERT_EQ(q.size(), ref.size());
  expect_drains_as(q, ref);
}

} // namespace

// The queue's helper thread follows the one thread policy of the runtime (--threads),
// like sorting: with one thread it runs both halves of its work on the caller.
TEST(PriorityQueueThreads, FollowTheProgramsThreadCount) {
  flow::set_threads(1);
  EXPECT_FALSE(flow::containers::pq::parallel_available());
  flow::set_threads(2);
  EXPECT_TRUE(flow::containers::pq::parallel_available());
  EXPECT_EQ(flow::algo::default_threads(), 2u);
  flow::set_threads(0);
  EXPECT_EQ(flow::threads(), flow::hardware_threads());
}
