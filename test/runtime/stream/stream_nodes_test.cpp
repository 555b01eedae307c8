// Stream nodes: generate, range, scan, read, map, filter, unique (by element, key, or
// predicate), take, tee, merge, materialize (vector, external vector, file, iterator),
// branch, count, for_each; sort as a node and unique / merge / branch after a sort, on
// a memory disk and an O_DIRECT disk.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/containers/vector.hpp"
#include "flow/stream/stream.hpp"
#include "test_support.hpp"

namespace {

namespace fs = flow::stream;

struct edge {
  std::uint32_t src, dst;
  std::uint64_t w;
  friend bool operator==(const edge&, const edge&) = default;
};
struct by_src_dst {
  bool operator()(const edge& a, const edge& b) const { return a.src < b.src || (a.src == b.src && a.dst < b.dst); }
  static edge min_value() { return {0, 0, 0}; }
  static edge max_value() { return {UINT32_MAX, UINT32_MAX, 0}; }
  using key_type = std::uint64_t;
  static key_type key(const edge& e) { return (std::uint64_t{e.src} << 32) | e.dst; }
  static constexpr bool key_is_total = true;
};
struct by_dst { // comparison only
  bool operator()(const edge& a, const edge& b) const { return a.dst < b.dst; }
  static edge min_value() { return {0, 0, 0}; }
  static edge max_value() { return {UINT32_MAX, UINT32_MAX, 0}; }
};
using u64_asc = flow::test::ascending<std::uint64_t>;

edge make_edge(std::uint64_t i, std::uint32_t nodes) {
  const std::uint64_t r = flow::test::mix(i);
  return {static_cast<std::uint32_t>(r % nodes), static_cast<std::uint32_t>((r >> 32) % nodes), i};
}

flow::algo::sort_options options(flow::mng::block_manager& bm, std::size_t block = 8192) {
  flow::algo::sort_options o;
  o.block_manager = &bm;
  o.block_bytes = block;
  return o;
}

TEST(StreamNodes, GenerateMapFilterTakeCount) {
  std::uint64_t calls = 0;
  auto g = fs::generate(1000, [&](std::uint64_t i) {
    ++calls;
    return i;
  });
  auto m = fs::map(g, [](std::uint64_t x) { return x * 3; });
  auto f = fs::filter(m, [](std::uint64_t x) { return x % 2 == 0; });
  std::vector<std::uint64_t> out;
  fs::materialize(f, out);
  ASSERT_EQ(out.size(), 500u);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], 6 * i);
  EXPECT_EQ(calls, 1000u) << "generate calls fn exactly once per element";

  EXPECT_EQ(fs::count(fs::take(fs::range<std::uint64_t>(0, 100), 7)), 7u);
  EXPECT_EQ(fs::count(fs::take(fs::range<std::uint64_t>(0, 3), 7)), 3u);
  EXPECT_EQ(fs::count(fs::take(fs::range<std::uint64_t>(0, 3), 0)), 0u);
  EXPECT_EQ(fs::count(fs::generate(0, [](std::uint64_t i) { return i; })), 0u);
  EXPECT_EQ(fs::count(fs::filter(fs::range<int>(0, 10), [](int) { return false; })), 0u);
  // take never pulls more than it passes on
  std::uint64_t made = 0;
  auto counted = fs::generate(100, [&](std::uint64_t i) {
    ++made;
    return i;
  });
  EXPECT_EQ(fs::count(fs::take(counted, 5)), 5u);
  EXPECT_EQ(made, 5u);
}

TEST(StreamNodes, UniqueByElementKeyAndPredicate) {
  const std::vector<int> v{1, 1, 2, 3, 3, 3, 1, 4, 4};
  std::vector<int> a, b, c;
  fs::materialize(fs::unique(fs::scan(v)), a);
  EXPECT_EQ(a, (std::vector<int>{1, 2, 3, 1, 4}));
  fs::materialize(fs::unique(fs::scan(v), [](int x) { return x / 2; }), b); // keys 0 1 1 1 1 1 0 2 2
  EXPECT_EQ(b, (std::vector<int>{1, 2, 1, 4}));
  fs::materialize(fs::unique(fs::scan(v), [](int x, int y) { return y == x + 1 || x == y; }), c);
  EXPECT_EQ(c, (std::vector<int>{1, 3, 1, 4}));
  EXPECT_EQ(fs::count(fs::unique(fs::scan(std::vector<int>{}))), 0u);
}

TEST(StreamNodes, MergeOfSortedStreamsOfDifferentNodeTypes) {
  const std::vector<std::uint64_t> a{1, 4, 4, 9}, b{};
  auto evens = fs::map(fs::range<std::uint64_t>(0, 6), [](std::uint64_t x) { return 2 * x; });
  auto m = fs::merge<u64_asc>(fs::scan(a), fs::scan(b), evens);
  std::vector<std::uint64_t> out;
  fs::materialize(m, out);
  EXPECT_EQ(out, (std::vector<std::uint64_t>{0, 1, 2, 4, 4, 4, 6, 8, 9, 10}));
}

TEST(StreamNodes, TeeBranchForEachAndMaterializeTargets) {
  flow::mng::block_manager bm(flow::test::memory_config());
  std::vector<std::uint64_t> copy;
  std::uint64_t sum = 0;
  auto sum_up = [&](std::uint64_t x) { sum += x; };
  auto t = fs::tee(fs::range<std::uint64_t>(0, 100), copy, sum_up);
  std::vector<std::uint64_t> pulled;
  fs::materialize(t, pulled);
  EXPECT_EQ(pulled, copy);
  EXPECT_EQ(sum, 4950u);

  flow::containers::vector<std::uint64_t> ev(4 * 4096, 4096, bm);
  std::vector<std::uint64_t> v2;
  EXPECT_EQ(fs::branch(fs::range<std::uint64_t>(0, 5000), ev, v2), 5000u);
  EXPECT_EQ(ev.size(), 5000u);
  EXPECT_EQ(v2.size(), 5000u);
  std::uint64_t expect = 0;
  auto r = ev.scan();
  fs::for_each(r, [&](std::uint64_t x) { EXPECT_EQ(x, expect++); });
  EXPECT_EQ(expect, 5000u);

  std::vector<std::uint64_t> via_it;
  fs::materialize_to(fs::range<std::uint64_t>(3, 6), std::back_inserter(via_it));
  EXPECT_EQ(via_it, (std::vector<std::uint64_t>{3, 4, 5}));
}

TEST(StreamNodes, FileRoundTrip) {
  flow::test::scratch_dir dir;
  const std::string path = dir.file("edges.bin");
  EXPECT_EQ(fs::materialize_file(fs::generate(12345, [](std::uint64_t i) { return make_edge(i, 100); }), path), 12345u);
  auto in = fs::read<edge>(path);
  EXPECT_EQ(in.size(), 12345u);
  std::uint64_t i = 0;
  fs::for_each(in, [&](const edge& e) { EXPECT_EQ(e, make_edge(i++, 100)); });
  EXPECT_EQ(i, 12345u);
}

class StreamAfterSort : public ::testing::TestWithParam<bool> { // param: O_DIRECT disk
protected:
  void SetUp() override {
    bm_ = std::make_unique<flow::mng::block_manager>(GetParam() ? flow::test::direct_config(dir_.path())
                                                               : flow::test::memory_config());
  }
  void TearDown() override {
    EXPECT_EQ(bm_->allocated_bytes(), 0u);
    bm_.reset();
  }
  flow::test::scratch_dir dir_;
  std::unique_ptr<flow::mng::block_manager> bm_;
};

TEST_P(StreamAfterSort, SortThenUniqueCountsDistinctEdges) {
  const std::uint64_t n = 150000;
  const std::uint32_t nodes = 300; // many duplicates
  auto gen = fs::generate(n, [&](std::uint64_t i) { return make_edge(i, nodes); });
  auto no_loops = fs::filter(gen, [](const edge& e) { return e.src != e.dst; });
  auto sorted = fs::sort<by_src_dst>(no_loops, 512 << 10, options(*bm_));
  EXPECT_GE(sorted.merge_passes(), 1u);
  auto uniq = fs::unique(sorted, [](const edge& e) { return by_src_dst::key(e); });
  std::vector<edge> got;
  fs::materialize(uniq, got);

  std::vector<edge> ref;
  for (std::uint64_t i = 0; i < n; ++i) {
    const edge e = make_edge(i, nodes);
    if (e.src != e.dst) ref.push_back(e);
  }
  std::sort(ref.begin(), ref.end(), by_src_dst());
  ref.erase(std::unique(ref.begin(), ref.end(), [](const edge& a, const edge& b) { return by_src_dst::key(a) == by_src_dst::key(b); }), ref.end());
  ASSERT_EQ(got.size(), ref.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(by_src_dst::key(got[i]), by_src_dst::key(ref[i]));
}

TEST_P(StreamAfterSort, MergeOfTwoSorts) {
  auto a = fs::sort<u64_asc>(fs::generate(70000, [](std::uint64_t i) { return flow::test::mix(i) % 100000; }), 256 << 10, options(*bm_, 4096));
  auto b = fs::sort<u64_asc>(fs::generate(50000, [](std::uint64_t i) { return flow::test::mix(i + 7) % 100000; }), 256 << 10, options(*bm_, 4096));
  std::vector<std::uint64_t> got;
  fs::materialize(fs::merge<u64_asc>(a, b), got);
  std::vector<std::uint64_t> ref;
  for (std::uint64_t i = 0; i < 70000; ++i) ref.push_back(flow::test::mix(i) % 100000);
  for (std::uint64_t i = 0; i < 50000; ++i) ref.push_back(flow::test::mix(i + 7) % 100000);
  std::sort(ref.begin(), ref.end());
  EXPECT_EQ(got, ref);
}

TEST_P(StreamAfterSort, BranchIntoTwoRunsCreatorsThenMergeBoth) {
  const std::uint64_t n = 120000;
  auto opt = options(*bm_);
  flow::algo::runs_creator<edge, by_src_dst> by_a(512 << 10, by_src_dst(), opt);
  flow::algo::runs_creator<edge, by_dst> by_b(512 << 10, by_dst(), opt);
  EXPECT_EQ(fs::branch(fs::generate(n, [](std::uint64_t i) { return make_edge(i, 5000); }), by_a, by_b), n);
  flow::algo::runs_merger<edge, by_src_dst> ma(by_a.result(), 512 << 10, by_src_dst(), opt);
  flow::algo::runs_merger<edge, by_dst> mb(by_b.result(), 512 << 10, by_dst(), opt);
  std::vector<edge> ga, gb;
  fs::materialize(ma, ga);
  fs::materialize(mb, gb);
  ASSERT_EQ(ga.size(), n);
  ASSERT_EQ(gb.size(), n);
  EXPECT_TRUE(std::is_sorted(ga.begin(), ga.end(), by_src_dst()));
  EXPECT_TRUE(std::is_sorted(gb.begin(), gb.end(), by_dst()));
  // both are permutations of the input: the payload w is the index
  std::vector<bool> seen_a(n), seen_b(n);
  for (const auto& e : ga) seen_a[e.w] = true;
  for (const auto& e : gb) seen_b[e.w] = true;
  EXPECT_EQ(std::count(seen_a.begin(), seen_a.end(), true), static_cast<std::ptrdiff_t>(n));
  EXPECT_EQ(std::count(seen_b.begin(), seen_b.end(), true), static_cast<std::ptrdiff_t>(n));
}

TEST_P(StreamAfterSort, SortOfSortOutputAndTakeOfASort) {
  auto s1 = fs::sort<by_dst>(fs::generate(90000, [](std::uint64_t i) { return make_edge(i, 1u << 30); }), 512 << 10, options(*bm_));
  auto s2 = fs::sort<by_src_dst>(s1, 512 << 10, options(*bm_)); // s1 feeds s2's run formation
  auto first = fs::take(s2, 1000);
  std::vector<edge> got;
  fs::materialize(first, got);
  ASSERT_EQ(got.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), by_src_dst()));
}

INSTANTIATE_TEST_SUITE_P(StreamDisks, StreamAfterSort, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("Direct") : std::string("Memory"); });

} // namespace
