// Join, left join, zip and concat nodes: joins against an in-memory nested-loop reference
// across sizes that cross block and buffer boundaries, skewed keys (on either side and
// both), all-equal keys, groups larger than the whole budget (spilled and re-read), empty
// inputs, no matches, unmatched left elements, records of different types on the two
// sides; the I/O of a spilled group against flow/plan/join_model.hpp and the buffer peak
// against the budget; zip of 2 and 3 inputs with the length-mismatch error; concat with
// empty inputs and batches.
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/io/buffer.hpp"
#include "flow/io/stats.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/script/error.hpp"
#include "flow/stream/combine.hpp"
#include "flow/stream/join.hpp"
#include "flow/stream/stream.hpp"
#include "test_support.hpp"

namespace {

namespace fs = flow::stream;
using u64 = std::uint64_t;

struct Order {
  std::uint32_t cust;
  std::uint32_t seq; // position in the input, to check the order of the output
  u64 amount;
};
struct Customer {
  std::uint32_t id;
  std::uint32_t nation;
};
struct Row {
  std::uint32_t cust = 0, seq = 0, id = 0, nation = 0;
  u64 amount = 0;
  bool found = false;
  friend bool operator==(const Row&, const Row&) = default;
};

int compare_oc(const Order& o, const Customer& c) { return o.cust < c.id ? -1 : (o.cust > c.id ? 1 : 0); }
bool same_customer(const Customer& a, const Customer& b) { return a.id == b.id; }
Row inner_row(const Order& o, const Customer& c) { return {o.cust, o.seq, c.id, c.nation, o.amount, true}; }
Row outer_row(const Order& o, const Customer& c, bool found) {
  return {o.cust, o.seq, c.id, c.nation, o.amount, found};
}

// Block and budget of most tests: 4 KiB blocks of 512 customers, 16 blocks, so a group of
// up to 8192 customers costs no I/O and a larger one spills.
constexpr std::size_t block = 4096;
constexpr std::size_t budget = 16 * block;
constexpr u64 per_block = block / sizeof(Customer);

std::vector<Order> orders_with_keys(std::vector<std::uint32_t> keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<Order> v;
  for (std::size_t i = 0; i < keys.size(); ++i) v.push_back({keys[i], static_cast<std::uint32_t>(i), flow::test::mix(i)});
  return v;
}
std::vector<Customer> customers_with_keys(std::vector<std::uint32_t> keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<Customer> v;
  for (std::size_t i = 0; i < keys.size(); ++i) v.push_back({keys[i], static_cast<std::uint32_t>(i)});
  return v;
}
// n keys in [0, range), a share `heavy` of them equal to `hot`.
std::vector<std::uint32_t> keys(u64 n, std::uint32_t range, double heavy, std::uint32_t hot, u64 seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) {
    x = std::uniform_real_distribution<double>(0, 1)(rng) < heavy ? hot : static_cast<std::uint32_t>(rng() % range);
  }
  return k;
}

// The expected output: a nested loop over both inputs. For large inputs (where n * m
// comparisons take too long in a Debug build) the inner loop only visits the right
// elements of the left element's key, found by binary search; the output is the same.
std::vector<Row> reference(const std::vector<Order>& l, const std::vector<Customer>& r, bool outer) {
  std::vector<Row> out;
  const bool nested = l.size() * r.size() <= 2'000'000;
  for (const auto& o : l) {
    bool any = false;
    auto first = r.begin(), last = r.end();
    if (!nested) {
      first = std::lower_bound(r.begin(), r.end(), o.cust, [](const Customer& c, std::uint32_t k) { return c.id < k; });
      last = std::upper_bound(first, r.end(), o.cust, [](std::uint32_t k, const Customer& c) { return k < c.id; });
    }
    for (auto c = first; c != last; ++c) {
      if (compare_oc(o, *c) == 0) {
        out.push_back(outer ? outer_row(o, *c, true) : inner_row(o, *c));
        any = true;
      }
    }
    if (outer && !any) out.push_back(outer_row(o, Customer{}, false));
  }
  return out;
}

class JoinTest : public ::testing::Test {
protected:
  flow::mng::block_manager bm{flow::test::memory_config()};

  // Runs join or left_join over the two vectors and checks the buffer peak and that
  // nothing leaks (buffers, disk blocks).
  std::vector<Row> run(const std::vector<Order>& l, const std::vector<Customer>& r, bool outer,
                       std::size_t memory = budget, std::size_t blk = block) {
    const u64 base = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    std::vector<Row> out;
    if (outer) {
      auto j = fs::left_join(fs::scan(l), fs::scan(r), compare_oc, same_customer, outer_row, memory, blk, bm);
      for (; !j.empty(); ++j) out.push_back(*j);
    } else {
      auto j = fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, memory, blk, bm);
      for (; !j.empty(); ++j) out.push_back(*j);
    }
    EXPECT_LE(flow::io::buffer_memory::peak() - base, memory) << "memory budget exceeded";
    EXPECT_EQ(flow::io::buffer_memory::current(), base) << "buffers leaked";
    EXPECT_EQ(bm.allocated_bytes(), 0u) << "disk blocks leaked";
    return out;
  }
  void check(const std::vector<Order>& l, const std::vector<Customer>& r, const std::string& what) {
    for (bool outer : {false, true}) {
      const auto expected = reference(l, r, outer);
      const auto got = run(l, r, outer);
      ASSERT_EQ(got.size(), expected.size()) << what << (outer ? " (left join)" : " (join)");
      EXPECT_TRUE(got == expected) << what << (outer ? " (left join)" : " (join)");
    }
  }
};

TEST_F(JoinTest, MatchesNestedLoopAcrossSizes) {
  const std::vector<u64> sizes = {0, 1, 2, per_block - 1, per_block, per_block + 1, 14 * per_block + 1,
                                  16 * per_block + 1, 20 * per_block + 3};
  u64 seed = 1;
  for (u64 nl : sizes) {
    for (u64 nr : sizes) {
      // few keys (large groups, many pairs) and many keys (small groups, some misses)
      for (std::uint32_t range : {3u, 1000u}) {
        if (range == 3 && nl * nr > 4'000'000) continue; // output size, not coverage
        const auto l = orders_with_keys(keys(nl, range, 0, 0, ++seed));
        const auto r = customers_with_keys(keys(nr, range + range / 2, 0, 0, ++seed));
        check(l, r, "nl=" + std::to_string(nl) + " nr=" + std::to_string(nr) + " range=" + std::to_string(range));
      }
    }
  }
}

TEST_F(JoinTest, SkewedKeys) {
  // one key holding most elements: on the right (its group spills), on the left (many
  // re-reads of a small group), on both (a spilled group re-read for many left elements)
  struct shape {
    u64 nl, nr;
    double heavy_l, heavy_r;
  };
  for (const shape& s : {shape{3000, 20000, 0.0, 0.9}, shape{20000, 3000, 0.9, 0.0}, shape{100, 12000, 0.9, 0.9},
                         shape{1000, 12000, 0.05, 0.8}}) {
    const auto l = orders_with_keys(keys(s.nl, 500, s.heavy_l, 250, s.nl + 7));
    const auto r = customers_with_keys(keys(s.nr, 500, s.heavy_r, 250, s.nr + 11));
    check(l, r, "nl=" + std::to_string(s.nl) + " nr=" + std::to_string(s.nr));
  }
}

// One key on both sides: group sizes around the buffer's capacity, and the I/O of a
// spilled group is what flow/plan/join_model.hpp says.
TEST_F(JoinTest, AllEqualKeysAcrossGroupSizes) {
  const u64 cap = flow::plan::join_group_capacity(sizeof(Customer), budget, block);
  ASSERT_EQ(cap, 16 * per_block);
  for (u64 g : {u64{1}, per_block - 1, per_block, per_block + 1, 14 * per_block, 14 * per_block + 1,
                15 * per_block + 1, cap, cap + 1, 17 * per_block, 17 * per_block + 1, 23 * per_block + 5}) {
    for (u64 nl : {1, 2, 3}) {
      const auto l = orders_with_keys(std::vector<std::uint32_t>(nl, 42));
      const auto r = customers_with_keys(std::vector<std::uint32_t>(g, 42));
      flow::io::scoped_stats phase;
      const auto got = run(l, r, false);
      const auto io = phase.elapsed().total();
      ASSERT_EQ(got, reference(l, r, false)) << "g=" << g << " nl=" << nl;
      const auto model = flow::plan::join_group_cost(g, nl, sizeof(Customer), budget, block);
      EXPECT_EQ(io.write_bytes, model.write_bytes) << "g=" << g << " nl=" << nl;
      EXPECT_EQ(io.read_bytes, model.read_bytes) << "g=" << g << " nl=" << nl;
      EXPECT_EQ(model.write_bytes != 0, g > cap);
    }
  }
}

TEST_F(JoinTest, EmptyInputsAndNoMatches) {
  const auto l = orders_with_keys({1, 3, 3, 5});
  const auto r = customers_with_keys({0, 2, 2, 4, 6});
  EXPECT_TRUE(run(l, r, false).empty());
  const auto outer = run(l, r, true);
  ASSERT_EQ(outer.size(), 4u);
  for (std::size_t i = 0; i < outer.size(); ++i) {
    EXPECT_FALSE(outer[i].found);
    EXPECT_EQ(outer[i].seq, i);
    EXPECT_EQ(outer[i].id, 0u) << "the missing right element is zero-filled";
    EXPECT_EQ(outer[i].nation, 0u);
  }
  EXPECT_TRUE(run({}, r, false).empty());
  EXPECT_TRUE(run({}, r, true).empty());
  EXPECT_TRUE(run(l, {}, false).empty());
  EXPECT_EQ(run(l, {}, true), reference(l, {}, true));
  EXPECT_TRUE(run({}, {}, false).empty());
  EXPECT_TRUE(run({}, {}, true).empty());
}

TEST_F(JoinTest, LeftJoinUnmatchedFirstMiddleLast) {
  const auto l = orders_with_keys({0, 0, 2, 2, 3, 5, 5, 9});
  const auto r = customers_with_keys({1, 2, 2, 2, 5, 6, 7});
  const auto got = run(l, r, true);
  ASSERT_EQ(got, reference(l, r, true));
  // 0, 0 unmatched (first), 2 x3 twice, 3 unmatched (middle), 5 x1 twice, 9 unmatched (last)
  ASSERT_EQ(got.size(), 2u + 6u + 1u + 2u + 1u);
  EXPECT_FALSE(got.front().found);
  EXPECT_FALSE(got[8].found);
  EXPECT_EQ(got[8].cust, 3u);
  EXPECT_FALSE(got.back().found);
  EXPECT_EQ(got.back().cust, 9u);
  const auto inner = run(l, r, false);
  EXPECT_EQ(inner.size(), 8u);
}

// One key with more elements than the whole budget: 200k right x 3 left (the right group
// spills and is re-read), and 1 KiB records on both sides, each side over 1 MiB.
TEST_F(JoinTest, GroupLargerThanTheBudget) {
  const std::size_t mem = 1 << 20, blk = 16 << 10;
  {
    const u64 nr = 200'000, nl = 3;
    const u64 base = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    auto j = fs::join(
        fs::generate(nl, [](u64 i) { return Order{7, static_cast<std::uint32_t>(i), i}; }),
        fs::generate(nr, [](u64 i) { return Customer{7, static_cast<std::uint32_t>(i)}; }), compare_oc,
        same_customer, inner_row, mem, blk, bm);
    u64 n = 0;
    bool in_order = true;
    for (; !j.empty(); ++j, ++n) in_order &= j->seq == n / nr && j->nation == n % nr;
    EXPECT_EQ(n, nl * nr);
    EXPECT_TRUE(in_order) << "for each left element all right elements, in input order";
    EXPECT_LE(flow::io::buffer_memory::peak() - base, mem);
  }
  {
    struct Big {
      std::uint32_t key, seq;
      unsigned char payload[1016];
    };
    static_assert(sizeof(Big) == 1024);
    const u64 n = 1100; // 1.07 MiB per side
    auto make = [](u64 i) {
      Big b{};
      b.key = 1;
      b.seq = static_cast<std::uint32_t>(i);
      b.payload[i % 1016] = static_cast<unsigned char>(i);
      return b;
    };
    const u64 base = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    flow::io::scoped_stats phase;
    auto j = fs::join(
        fs::generate(n, make), fs::generate(n, make),
        [](const Big& a, const Big& b) { return a.key < b.key ? -1 : (a.key > b.key ? 1 : 0); },
        [](const Big& a, const Big& b) { return a.key == b.key; },
        [](const Big& a, const Big& b) { return (u64{a.seq} << 32) | (b.seq + b.payload[b.seq % 1016]); }, mem,
        blk, bm);
    u64 count = 0, sum = 0, expect_sum = 0;
    for (; !j.empty(); ++j, ++count) sum += *j;
    for (u64 a = 0; a < n; ++a) {
      for (u64 b = 0; b < n; ++b) expect_sum += (a << 32) | (b + (b % 256));
    }
    EXPECT_EQ(count, n * n);
    EXPECT_EQ(sum, expect_sum);
    EXPECT_LE(flow::io::buffer_memory::peak() - base, mem);
    const auto io = phase.elapsed().total();
    const auto model = flow::plan::join_group_cost(n, n, sizeof(Big), mem, blk);
    EXPECT_GT(model.read_bytes, 0u);
    EXPECT_EQ(io.write_bytes, model.write_bytes);
    EXPECT_EQ(io.read_bytes, model.read_bytes);
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(JoinDirect, SpilledGroupOnODirectFile) {
  flow::test::scratch_dir dir;
  {
    flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
    const auto l = orders_with_keys({1, 2, 2, 2, 3});
    std::vector<std::uint32_t> rk(20 * per_block, 2);
    rk.push_back(1);
    rk.push_back(4);
    const auto r = customers_with_keys(rk);
    for (bool outer : {false, true}) {
      std::vector<Row> got;
      if (outer) {
        for (auto j = fs::left_join(fs::scan(l), fs::scan(r), compare_oc, same_customer, outer_row, budget, block, bm);
             !j.empty(); ++j) {
          got.push_back(*j);
        }
      } else {
        for (auto j = fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, budget, block, bm);
             !j.empty(); ++j) {
          got.push_back(*j);
        }
      }
      EXPECT_EQ(got, reference(l, r, outer));
    }
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST_F(JoinTest, LvalueInputsAndBothInputsReadToTheEnd) {
  // right ends early: the left input is still read to its end (a tee upstream sees all)
  u64 pulled = 0;
  auto left = fs::generate(1000, [&](u64 i) {
    ++pulled;
    return Order{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i), i};
  });
  const auto r = customers_with_keys({3, 4});
  auto right = fs::scan(r);
  auto j = fs::join(left, right, compare_oc, same_customer, inner_row, budget, block, bm);
  EXPECT_EQ(fs::count(j), 2u);
  EXPECT_EQ(pulled, 1000u);
  EXPECT_TRUE(left.empty());
  EXPECT_TRUE(right.empty());
}

TEST_F(JoinTest, NodesMoveIntoOtherNodes) {
  // join, zip and concat as rvalue inputs of other nodes (which hold them by value)
  const auto l = orders_with_keys({1, 2, 2, 3});
  const auto r = customers_with_keys(std::vector<std::uint32_t>(20 * per_block, 2));
  auto amounts = fs::map(fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, budget, block, bm),
                         [](const Row& x) { return x.nation; });
  u64 n = 0, sum = 0;
  for (; !amounts.empty(); ++amounts, ++n) sum += *amounts;
  EXPECT_EQ(n, 2 * r.size());
  EXPECT_EQ(sum, 2 * (r.size() * (r.size() - 1) / 2));

  auto c = fs::filter(fs::concat(fs::generate(3, [](u64 i) { return i; }), fs::generate(2, [](u64 i) { return i + 7; })),
                      [](u64) { return true; });
  std::vector<u64> out;
  for (; !c.empty(); ++c) out.push_back(*c);
  EXPECT_EQ(out, (std::vector<u64>{0, 1, 2, 7, 8}));

  auto z = fs::take(fs::zip("t:1:1", [](u64 a, u64 b) { return a * b; }, fs::range<u64>(0, 4), fs::range<u64>(1, 5)), 9);
  out.clear();
  for (; !z.empty(); ++z) out.push_back(*z);
  EXPECT_EQ(out, (std::vector<u64>{0, 2, 6, 12}));
}

TEST_F(JoinTest, RejectsTooSmallBudgetsAndBadBlocks) {
  const std::vector<Order> l;
  const std::vector<Customer> r;
  EXPECT_EQ(flow::plan::join_min_memory(block), 3 * block);
  try {
    auto j = fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, 3 * block - 1, block, bm);
    FAIL() << "a budget under 3 blocks was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at least 3 blocks (12288 bytes"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, 3 * block, block, bm));
  EXPECT_THROW(fs::join(fs::scan(l), fs::scan(r), compare_oc, same_customer, inner_row, budget, 1000, bm),
               std::invalid_argument);
  EXPECT_THROW(fs::left_join(fs::scan(l), fs::scan(r), compare_oc, same_customer, outer_row, budget, 0, bm),
               std::invalid_argument);
}

TEST(JoinModel, Formulas) {
  namespace p = flow::plan;
  static_assert(p::join_min_memory(4096) == 12288);
  static_assert(p::join_group_capacity(8, 16 * 4096, 4096) == 16 * 512);
  static_assert(p::join_group_cost(16 * 512, 5, 8, 16 * 4096, 4096).io_bytes() == 0);
  // 17 blocks of 512: 14 stay in memory, 3 spilled, written once and read per left element
  constexpr auto c = p::join_group_cost(17 * 512, 5, 8, 16 * 4096, 4096);
  static_assert(c.spilled_blocks == 3 && c.write_bytes == 3 * 4096 && c.read_bytes == 5 * 3 * 4096);
  static_assert(p::join_group_cost(17 * 512, 0, 8, 16 * 4096, 4096).io_bytes() == 0);
  EXPECT_EQ(p::join_group_cost(u64{1} << 62, u64{1} << 62, 8, 4096 * 3, 4096).read_bytes, p::saturated);
}

// --- zip ---------------------------------------------------------------------------------

TEST(Zip, TwoAndThreeInputs) {
  const std::vector<u64> a = {1, 2, 3, 4};
  const std::vector<Customer> b = {{10, 1}, {20, 2}, {30, 3}, {40, 4}};
  std::vector<u64> out;
  for (auto z = fs::zip("t:1:1", [](u64 x, const Customer& c) { return x * 1000 + c.id; }, fs::scan(a), fs::scan(b));
       !z.empty(); ++z) {
    out.push_back(*z);
  }
  EXPECT_EQ(out, (std::vector<u64>{1010, 2020, 3030, 4040}));

  auto g = fs::generate(4, [](u64 i) { return i * i; });
  auto z3 = fs::zip("t:2:1", [](u64 x, const Customer& c, u64 y) { return x + c.nation + y; }, fs::scan(a),
                    fs::scan(b), g);
  out.clear();
  for (; !z3.empty(); ++z3) out.push_back(*z3);
  EXPECT_EQ(out, (std::vector<u64>{2, 5, 10, 17}));
  EXPECT_TRUE(g.empty());

  EXPECT_EQ(fs::count(fs::zip("t:3:1", [](u64 x, u64 y) { return x + y; }, fs::range<u64>(0, 0),
                              fs::range<u64>(5, 5))),
            0u);
}

std::string zip_error(u64 n1, u64 n2, u64 n3) {
  try {
    auto z = fs::zip("script.flow:12:5", [](u64 x, u64 y, u64 w) { return x + y + w; }, fs::range<u64>(0, n1),
                     fs::range<u64>(0, n2), fs::range<u64>(0, n3));
    u64 n = 0;
    for (; !z.empty(); ++z) ++n;
    return "no error after " + std::to_string(n);
  } catch (const flow::script::script_error& e) {
    return e.what();
  }
}

TEST(Zip, LengthMismatchIsAnError) {
  EXPECT_EQ(zip_error(5, 3, 5), "script.flow:12:5: zip: input 2 ended after 3 elements, input 1 has more");
  EXPECT_EQ(zip_error(2, 5, 5), "script.flow:12:5: zip: input 1 ended after 2 elements, input 2 has more");
  EXPECT_EQ(zip_error(4, 4, 7), "script.flow:12:5: zip: input 1 ended after 4 elements, input 3 has more");
  EXPECT_EQ(zip_error(7, 4, 4), "script.flow:12:5: zip: input 2 ended after 4 elements, input 1 has more");
  EXPECT_EQ(zip_error(3, 0, 3), "script.flow:12:5: zip: input 2 ended after 0 elements, input 1 has more");
  EXPECT_EQ(zip_error(6, 6, 6), "no error after 6");
  EXPECT_EQ(zip_error(0, 0, 0), "no error after 0");
}

// --- concat ------------------------------------------------------------------------------

TEST(Concat, InOrderWithEmptyInputs) {
  const std::vector<u64> a = {1, 2}, b, c = {3}, d = {4, 5, 6};
  std::vector<u64> out;
  fs::materialize(fs::concat(fs::scan(a), fs::scan(b), fs::scan(c), fs::scan(b), fs::scan(d)), out);
  EXPECT_EQ(out, (std::vector<u64>{1, 2, 3, 4, 5, 6}));

  EXPECT_EQ(fs::count(fs::concat(fs::scan(b))), 0u);
  EXPECT_EQ(fs::count(fs::concat(fs::scan(b), fs::scan(b))), 0u);
  EXPECT_EQ(fs::count(fs::concat(fs::scan(a))), 2u);

  // different node types of one value_type, element by element (generate, range, map)
  auto m = fs::map(fs::range<u64>(0, 3), [](u64 x) { return x + 100; });
  out.clear();
  for (auto x = fs::concat(fs::generate(2, [](u64 i) { return i + 10; }), fs::range<u64>(0, 0), m); !x.empty(); ++x) {
    out.push_back(*x);
  }
  EXPECT_EQ(out, (std::vector<u64>{10, 11, 100, 101, 102}));

  // batches: each input's batch in turn
  auto cat = fs::concat(fs::scan(a), fs::scan(b), fs::scan(d));
  static_assert(fs::batch_node<decltype(cat)>);
  std::vector<std::size_t> sizes;
  while (!cat.empty()) {
    sizes.push_back(cat.batch().size());
    cat.advance(cat.batch().size());
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 3}));

  // push side
  std::vector<u64> pushed;
  fs::concat_into(pushed, fs::scan(c), fs::scan(b), fs::scan(a));
  EXPECT_EQ(pushed, (std::vector<u64>{3, 1, 2}));
}

} // namespace
