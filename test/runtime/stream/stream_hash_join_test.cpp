// The hash join against an in-memory reference (the pairs with equal keys, compared as
// sorted multisets: the hash join's output is in no key order): sizes that cross a
// pass's capacity and the sort's cutoffs, duplicate and skewed keys on either side and
// both, a right key held by 300000 elements, one key everywhere, empty inputs, no
// matches, inputs of different types; batches in chunks on several threads, a reader
// that stops early and an error on a thread; passes over a
// right input larger than the memory, their I/O against flow/plan/join_model.hpp, the
// buffer peak against the budget, nothing left allocated; the same output twice.
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "flow/io/buffer.hpp"
#include "flow/io/stats.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/script/values.hpp"
#include "flow/stream/hash_join.hpp"
#include "flow/stream/stream.hpp"
#include "test_support.hpp"

namespace {

namespace fs = flow::stream;
using u64 = std::uint64_t;

struct Order {
  std::uint32_t cust;
  std::uint32_t seq;
  u64 amount;
};
struct Customer {
  u64 id; // another integer type than the left key: hashed by value
  std::uint32_t nation;
  std::uint32_t seq;
};
struct Row {
  std::uint32_t seq = 0, cust_seq = 0;
  u64 amount = 0, id = 0;
  auto key() const { return std::tie(seq, cust_seq, amount, id); }
  friend bool operator==(const Row& a, const Row& b) { return a.key() == b.key(); }
  friend bool operator<(const Row& a, const Row& b) { return a.key() < b.key(); }
};

u64 order_hash(const Order& o) { return flow::script::hash(u64{o.cust}) * 0x9E3779B97F4A7C15ull; }
u64 customer_hash(const Customer& c) { return flow::script::hash(c.id) * 0x9E3779B97F4A7C15ull; }
int compare_oc(const Order& o, const Customer& c) { return o.cust < c.id ? -1 : (o.cust > c.id ? 1 : 0); }
Row row(const Order& o, const Customer& c) { return {o.seq, c.seq, o.amount, c.id}; }

constexpr std::size_t block = 4096;

// The least memory of a hash join of these records (at any thread count).
u64 least() {
  return flow::plan::hash_join_min_memory(block) + flow::plan::hash_join_probe_bytes(sizeof(Order), sizeof(Row), block);
}

std::vector<std::uint32_t> keys(u64 n, std::uint32_t range, double heavy, std::uint32_t hot, u64 seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> k(n);
  for (auto& x : k)
    x = std::uniform_real_distribution<double>(0, 1)(rng) < heavy ? hot : static_cast<std::uint32_t>(rng() % range);
  return k;
}
std::vector<Order> orders(const std::vector<std::uint32_t>& k) {
  std::vector<Order> v;
  for (std::size_t i = 0; i < k.size(); ++i) v.push_back({k[i], static_cast<std::uint32_t>(i), flow::test::mix(i)});
  return v;
}
std::vector<Customer> customers(const std::vector<std::uint32_t>& k) {
  std::vector<Customer> v;
  for (std::size_t i = 0; i < k.size(); ++i) v.push_back({k[i], static_cast<std::uint32_t>(i % 25), static_cast<std::uint32_t>(i)});
  return v;
}

std::vector<Row> reference(const std::vector<Order>& l, const std::vector<Customer>& r) {
  std::vector<Customer> sorted = r;
  std::sort(sorted.begin(), sorted.end(), [](const Customer& a, const Customer& b) { return a.id < b.id; });
  std::vector<Row> out;
  for (const Order& o : l) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), u64{o.cust},
                               [](const Customer& c, u64 k) { return c.id < k; });
    for (; it != sorted.end() && it->id == o.cust; ++it) out.push_back(row(o, *it));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class HashJoinTest : public ::testing::Test {
protected:
  flow::mng::block_manager bm{flow::test::memory_config()};

  /// The join's output in its own order; checks the buffer peak and that nothing leaks.
  std::vector<Row> run(const std::vector<Order>& l, const std::vector<Customer>& r, std::size_t memory,
                       u64* passes = nullptr, unsigned threads = 1) {
    const u64 base = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    std::vector<Row> out;
    {
      auto j = fs::hash_join(fs::scan(l), fs::scan(r), order_hash, customer_hash, compare_oc, row, memory, block, threads,
                             bm);
      for (; !j.empty(); ++j) out.push_back(*j);
      if (passes) *passes = j.passes();
    }
    EXPECT_LE(flow::io::buffer_memory::peak() - base, memory) << "memory budget exceeded";
    EXPECT_EQ(flow::io::buffer_memory::current(), base) << "buffers leaked";
    EXPECT_EQ(bm.allocated_bytes(), 0u) << "disk blocks leaked";
    return out;
  }
  // The output at 1 thread, the same (in the same order, also where it takes passes) at
  // 2, 3 and 8, and the reference's pairs.
  void check(const std::vector<Order>& l, const std::vector<Customer>& r, std::size_t memory, const std::string& what) {
    u64 passes = 0;
    std::vector<Row> got = run(l, r, memory, &passes);
    for (unsigned threads : {2u, 3u, 8u}) {
      u64 their_passes = 0;
      EXPECT_EQ(got, run(l, r, memory, &their_passes, threads)) << what << ": another order at " << threads << " threads";
      EXPECT_EQ(passes, their_passes) << what << " at " << threads << " threads";
    }
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, reference(l, r)) << what;
  }
};

TEST_F(HashJoinTest, MatchesTheReferenceAcrossSizesKeysAndMemory) {
  const std::size_t small = least() + 3 * block; // a table of 16 KiB: 908 elements a pass
  const std::size_t large = 64 << 20;  // holds everything
  for (u64 n : {u64{0}, u64{1}, u64{7}, u64{33}, u64{907}, u64{908}, u64{909}, u64{1000}, u64{5000}, u64{40000}}) {
    for (double heavy : {0.0, n <= 1000 ? 0.3 : 0.005}) { // (a hot key of n * heavy on each side)
      const auto l = orders(keys(n + 3, 2000, heavy, 17, n));
      const auto r = customers(keys(n, 2000, heavy, 17, n + 1));
      for (std::size_t memory : {n <= 5000 ? least() : 2 * small, small, 8 * small, large})
        check(l, r, memory,
              "n=" + std::to_string(n) + " heavy=" + std::to_string(heavy) + " memory=" + std::to_string(memory));
    }
  }
}

TEST_F(HashJoinTest, OneKeyEverywhereAndNoMatches) {
  const auto l = orders(std::vector<std::uint32_t>(300, 5));
  const auto r = customers(std::vector<std::uint32_t>(700, 5));
  for (std::size_t memory : {least(), std::size_t{1} << 20}) {
    check(l, r, memory, "one key, memory " + std::to_string(memory));
    EXPECT_EQ(run(l, r, memory).size(), 300u * 700u);
  }
  const auto none = customers(std::vector<std::uint32_t>(500, 6));
  EXPECT_TRUE(run(l, none, 1 << 20).empty());
  EXPECT_TRUE(run(l, {}, 1 << 20).empty());
  EXPECT_TRUE(run({}, r, 1 << 20).empty());
}

// One right key held by 300000 elements beside 20000 others: a probe of another key in
// its bucket does not walk past them (this takes minutes where it does).
TEST_F(HashJoinTest, AHotRightKeyCostsOnlyItsOutputs) {
  std::vector<std::uint32_t> rk(300000, 7);
  for (std::uint32_t k = 0; k < 20000; ++k) rk.push_back(k);
  std::mt19937_64 rng(3);
  std::shuffle(rk.begin(), rk.end(), rng);
  std::vector<std::uint32_t> lk;
  for (std::uint32_t i = 0; i < 200000; ++i) lk.push_back(i % 21000 == 7 ? 8 : i % 21000);
  lk.push_back(7);
  const auto l = orders(lk);
  const auto r = customers(rk);
  for (std::size_t memory : {std::size_t{1} << 20, std::size_t{64} << 20}) check(l, r, memory, "hot key");
}

// A right input larger than a pass: the passes and their I/O are the model's, on one
// thread and on three (given the memory of their batches besides).
TEST_F(HashJoinTest, PassesAndTheirIoFollowTheModel) {
  for (std::size_t memory : {flow::plan::hash_join_min_memory(block), 12 * block, 40 * block}) { // and the batches'
    const u64 holds = flow::plan::hash_join_capacity(sizeof(Customer), memory, block);
    for (u64 n : {holds, holds + 1, 3 * holds + 7}) {
      const auto l = orders(keys(2 * n + 11, 5000, 0.1, 3, n));
      const auto r = customers(keys(n, 5000, 0.1, 3, n + 1));
      const auto model = flow::plan::hash_join_cost(n, sizeof(Customer), l.size(), sizeof(Order), memory, block);
      std::vector<Row> first;
      for (unsigned threads : {1u, 3u}) {
        const std::string what = "n=" + std::to_string(n) + " memory=" + std::to_string(memory) + " threads=" +
                                 std::to_string(threads);
        flow::io::scoped_stats phase;
        u64 passes = 0;
        std::vector<Row> got = run(l, r, memory + flow::plan::hash_join_probe_bytes(sizeof(Order), sizeof(Row), block),
                                   &passes, threads);
        const auto io = phase.elapsed().total();
        if (threads == 1) first = got;
        EXPECT_EQ(got, first) << what;
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, reference(l, r)) << what;
        EXPECT_EQ(passes, model.passes) << what;
        EXPECT_EQ(io.write_bytes, model.write_bytes) << what;
        EXPECT_EQ(io.read_bytes, model.read_bytes) << what;
        EXPECT_EQ(passes > 1, n > holds) << what;
      }
    }
  }
}

// Blocks of 64 KiB: batches of 2730 left elements (a block of 24-byte outputs) in 10
// chunks that the threads take as they come, with the next batch probed while one is
// put out: the output is one thread's, at any thread count, in one pass and in several.
TEST_F(HashJoinTest, ChunksOfABatchOnAllThreads) {
  constexpr std::size_t big = 64 << 10;
  ASSERT_EQ(flow::plan::hash_join_batch_elements(sizeof(Order), sizeof(Row), big), 2730u);
  ASSERT_EQ(flow::plan::hash_join_chunks(2730), 10u);
  const auto l = orders(keys(100003, 3000, 0.01, 9, 21));
  const auto r = customers(keys(6000, 3000, 0.01, 9, 22));
  const u64 least_big =
      flow::plan::hash_join_min_memory(big) + flow::plan::hash_join_probe_bytes(sizeof(Order), sizeof(Row), big);
  for (std::size_t memory : {least_big + big / 2, std::size_t{8} << 20}) { // (2 passes; 1)
    std::vector<Row> first;
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      std::vector<Row> got;
      {
        auto j = fs::hash_join(fs::scan(l), fs::scan(r), order_hash, customer_hash, compare_oc, row, memory, big,
                               threads, bm);
        for (; !j.empty(); ++j) got.push_back(*j);
        EXPECT_EQ(j.passes() > 1, memory < (std::size_t{8} << 20)) << memory;
      }
      if (threads == 1) first = got;
      EXPECT_EQ(got, first) << "another order at " << threads << " threads, memory " << memory;
    }
    std::sort(first.begin(), first.end());
    ASSERT_EQ(first, reference(l, r)) << memory;
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// A stage that stops reading the join early, and an error in fn on any thread: the batch
// the threads are probing is waited for before its buffers go (ThreadSanitizer and the
// buffer count would see it otherwise), and the error reaches the reader.
TEST_F(HashJoinTest, StoppingEarlyOrAnErrorWaitsForTheThreads) {
  constexpr std::size_t big = 64 << 10;
  const auto l = orders(keys(50000, 3000, 0.0, 0, 31));
  const auto r = customers(keys(3000, 3000, 0.0, 0, 32));
  auto failing = [](const Order& o, const Customer& c) {
    if (o.seq == 30000) throw std::runtime_error("bad row");
    return row(o, c);
  };
  const u64 base = flow::io::buffer_memory::current();
  for (unsigned threads : {1u, 2u, 3u}) {
    {
      auto j = fs::hash_join(fs::scan(l), fs::scan(r), order_hash, customer_hash, compare_oc, row, 4 << 20, big,
                             threads, bm);
      for (int i = 0; i < 10 && !j.empty(); ++i) ++j;
    } // destroyed while the threads probe the next batch
    std::size_t seen = 0;
    EXPECT_THROW(
        {
          auto j = fs::hash_join(fs::scan(l), fs::scan(r), order_hash, customer_hash, compare_oc, failing, 4 << 20, big,
                                 threads, bm);
          for (; !j.empty(); ++j) ++seen;
        },
        std::runtime_error)
        << threads;
    EXPECT_LT(seen, 30000u) << threads;
    EXPECT_EQ(flow::io::buffer_memory::current(), base) << threads;
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST_F(HashJoinTest, TooLittleMemoryIsAnError) {
  const auto l = orders({1});
  const auto r = customers({1});
  EXPECT_THROW(run(l, r, least() - 1), std::invalid_argument);
  EXPECT_THROW(run(l, r, least() - 1, nullptr, 2), std::invalid_argument);
}

TEST(HashJoinModel, Formulas) {
  EXPECT_EQ(flow::plan::hash_join_buckets(0), 1u);
  EXPECT_EQ(flow::plan::hash_join_buckets(3), 1u);
  EXPECT_EQ(flow::plan::hash_join_buckets(7), 2u);
  EXPECT_EQ(flow::plan::hash_join_buckets(8), 4u);
  EXPECT_EQ(flow::plan::hash_join_buckets(1 << 24), u64{1} << 23);
  // 2^24 customers of 8 bytes: the elements and a directory of 2^23 buckets.
  EXPECT_EQ(flow::plan::hash_join_table_bytes(1 << 24, 8), (u64{8} << 24) + ((u64{1} << 23) + 1) * 4);
  // What the planner gives a table is what a pass holds, at every count.
  for (u64 n : {u64{1}, u64{15}, u64{16}, u64{17}, u64{1000}, (u64{1} << 24) - 1, u64{1} << 24}) {
    for (u64 s : {u64{1}, u64{8}, u64{16}, u64{100}}) {
      const u64 need = flow::plan::hash_join_memory_for(n, s, 1 << 20);
      EXPECT_GE(flow::plan::hash_join_capacity(s, need, 1 << 20), n) << n << " " << s;
      EXPECT_LE(flow::plan::hash_join_table_bytes(flow::plan::hash_join_capacity(s, need, 1 << 20), s) + (u64{4} << 20),
                need) << n << " " << s;
    }
  }
  EXPECT_EQ(flow::plan::hash_join_cost(10, 8, 100, 16, 64 << 20, 1 << 20).io_bytes(), 0u);
}

} // namespace
