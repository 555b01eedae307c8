// reduce: the rule on sorted input (fold_groups, reduce_sorted), the combining sort
// (reduce_runs + reduce_merge: runs_creator / runs_merger with a combiner) and the hash
// path (hash_reduce_runs), each against a std::map fold, across run and block boundaries,
// with skewed, all-equal and all-distinct keys; their memory and I/O; the plan model.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/sorter.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/reduce_model.hpp"
#include "flow/stream/reduce.hpp"
#include "flow/stream/sources.hpp"
#include "test_support.hpp"

namespace {

struct kv {
  std::uint64_t key;
  std::uint64_t count;
};
struct kv_order { // radix key, total: direct radix run sorting
  bool operator()(const kv& a, const kv& b) const { return a.key < b.key; }
  static kv min_value() { return {0, 0}; }
  static kv max_value() { return {UINT64_MAX, 0}; }
  using key_type = std::uint64_t;
  static key_type key(const kv& x) { return x.key; }
  static constexpr bool key_is_total = true;
};
struct kv_cmp_order { // comparison only
  bool operator()(const kv& a, const kv& b) const { return a.key < b.key; }
  static kv min_value() { return {0, 0}; }
  static kv max_value() { return {UINT64_MAX, 0}; }
};
struct kv_prefix_order { // a 16-bit key prefix: equal keys decided by the order
  bool operator()(const kv& a, const kv& b) const { return a.key < b.key; }
  static kv min_value() { return {0, 0}; }
  static kv max_value() { return {UINT64_MAX, 0}; }
  using key_type = std::uint16_t;
  static key_type key(const kv& x) { return static_cast<std::uint16_t>(x.key >> 48); }
  static constexpr bool key_is_total = false;
};
struct big { // 64 bytes: indirect radix run sorting
  std::uint64_t key;
  std::uint64_t count;
  std::uint64_t pad[6];
};
struct big_order {
  bool operator()(const big& a, const big& b) const { return a.key < b.key; }
  static big min_value() { return {0, 0, {}}; }
  static big max_value() { return {UINT64_MAX, 0, {}}; }
  using key_type = std::uint64_t;
  static key_type key(const big& x) { return x.key; }
  static constexpr bool key_is_total = true;
};
static_assert(flow::algo::run_sort_traits<big, big_order>::indirect);

struct sum_count {
  template <class T> T operator()(const T& a, const T& b) const {
    T r = a;
    r.count += b.count;
    return r;
  }
};
struct key_hash {
  template <class T> std::uint64_t operator()(const T& x) const { return x.key; } // identity: mixed inside
};
struct same_key {
  template <class T> bool operator()(const T& a, const T& b) const { return a.key == b.key; }
};

enum class keys { random, skewed, all_equal, all_distinct };

template <class T> T make(std::uint64_t key, std::uint64_t count) {
  T x{};
  x.key = key;
  x.count = count;
  if constexpr (requires { x.pad; }) x.pad[0] = key ^ 0x5555; // a payload that follows the key
  return x;
}

/// n elements with keys from `d` distinct values (spread over all 64 bits), counts 1..7.
template <class T> std::vector<T> make_input(std::size_t n, keys k, std::uint64_t d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t key = 0;
    switch (k) {
    case keys::random: key = flow::test::mix(rng() % d); break;
    case keys::skewed: key = rng() % 10 < 9 ? flow::test::mix(7) : flow::test::mix(rng() % d); break;
    case keys::all_equal: key = 12345; break;
    case keys::all_distinct: key = flow::test::mix(i + seed * 1000003); break;
    }
    v[i] = make<T>(key, 1 + rng() % 7);
  }
  return v;
}

/// The reference: each key once, ascending, with the sum of its counts.
template <class T> std::vector<T> reference(const std::vector<T>& in) {
  std::map<std::uint64_t, std::uint64_t> m;
  for (const auto& x : in) m[x.key] += x.count;
  std::vector<T> out;
  out.reserve(m.size());
  for (const auto& [k, c] : m) out.push_back(make<T>(k, c));
  return out;
}

template <class T> void expect_reduced(const std::vector<T>& in, const std::vector<T>& out, const std::string& what) {
  const std::vector<T> ref = reference(in);
  ASSERT_EQ(out.size(), ref.size()) << what << ": groups";
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(out[i].key, ref[i].key) << what << ": key at " << i;
    ASSERT_EQ(out[i].count, ref[i].count) << what << ": count at " << i;
    if constexpr (requires { out[i].pad; }) {
      ASSERT_EQ(out[i].pad[0], out[i].key ^ 0x5555) << what;
    }
  }
}


flow::algo::sort_options options(flow::mng::block_manager& bm, std::size_t block, bool keep_last = false) {
  flow::algo::sort_options opt;
  opt.block_manager = &bm;
  opt.block_bytes = block;
  opt.threads = 2;
  opt.keep_last_run = keep_last;
  return opt;
}

template <class T, class Cmp>
std::vector<T> via_sort(const std::vector<T>& in, std::size_t memory, std::size_t merge_memory,
                        const flow::algo::sort_options& opt, unsigned* passes = nullptr) {
  flow::stream::reduce_runs<T, Cmp, sum_count> rr(memory, {}, opt);
  const std::size_t half = in.size() / 2;
  for (std::size_t i = 0; i < half; ++i) rr.push(in[i]);
  rr.push(std::span<const T>(in.data() + half, in.size() - half));
  EXPECT_EQ(rr.size(), in.size());
  flow::algo::sorted_runs<T> runs = rr.result();
  flow::stream::reduce_merge<T, Cmp, sum_count> rm(std::move(runs), merge_memory, {}, opt);
  std::vector<T> out;
  flow::test::read_mixed(rm, out);
  if (passes) *passes = rm.merge_passes();
  return out;
}

template <class T>
std::vector<T> via_hash(const std::vector<T>& in, std::size_t memory, std::size_t merge_memory,
                        const flow::algo::sort_options& opt, std::size_t* spills = nullptr,
                        std::uint64_t expected_keys = 0) {
  using Cmp = std::conditional_t<std::is_same_v<T, big>, big_order, kv_order>;
  flow::stream::hash_reduce_runs<T, Cmp, key_hash, same_key, sum_count> h(memory, {}, opt, {}, {}, {}, expected_keys);
  for (const auto& x : in) h.push(x);
  EXPECT_EQ(h.size(), in.size());
  if (spills) *spills = h.spills();
  flow::algo::sorted_runs<T> runs = h.result();
  flow::stream::reduce_merge<T, Cmp, sum_count> rm(std::move(runs), merge_memory, {}, opt);
  std::vector<T> out;
  flow::test::read_mixed(rm, out);
  return out;
}

template <class T> std::vector<T> via_sorted(std::vector<T> in) {
  std::sort(in.begin(), in.end(), [](const T& a, const T& b) { return a.key < b.key; });
  auto r = flow::stream::reduce_sorted(flow::stream::scan(std::span<const T>(in)), same_key{}, sum_count{});
  std::vector<T> out;
  for (; !r.empty(); ++r) out.push_back(*r);
  return out;
}

// ---- the rule on sorted input ----------------------------------------------------------

TEST(ReduceSorted, FoldGroupsPushAndFinish) {
  flow::stream::fold_groups<kv, same_key, sum_count> g;
  std::vector<kv> out;
  auto emit = [&](const kv& x) { out.push_back(x); };
  g.finish(emit); // empty input: nothing
  EXPECT_TRUE(out.empty());
  for (kv x : {kv{1, 2}, kv{1, 3}, kv{2, 1}, kv{5, 1}, kv{5, 1}, kv{5, 1}}) g.push(x, emit);
  ASSERT_EQ(out.size(), 2u); // the group of 5 is still open
  EXPECT_TRUE(g.open());
  g.finish(emit);
  g.finish(emit); // idempotent
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].key, 1u);
  EXPECT_EQ(out[0].count, 5u);
  EXPECT_EQ(out[1].key, 2u);
  EXPECT_EQ(out[1].count, 1u);
  EXPECT_EQ(out[2].key, 5u);
  EXPECT_EQ(out[2].count, 3u);
  // a unary key function works as `same` too
  flow::stream::fold_groups<kv, std::uint64_t (*)(const kv&), sum_count> byk([](const kv& x) { return x.key; });
  std::vector<kv> o2;
  for (kv x : {kv{3, 1}, kv{3, 1}}) byk.push(x, [&](const kv& y) { o2.push_back(y); });
  byk.finish([&](const kv& y) { o2.push_back(y); });
  ASSERT_EQ(o2.size(), 1u);
  EXPECT_EQ(o2[0].count, 2u);
}

TEST(ReduceSorted, NodeAgainstReference) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
    for (keys k : {keys::random, keys::skewed, keys::all_equal, keys::all_distinct}) {
      const auto in = make_input<kv>(n, k, 37, n + 1);
      expect_reduced(in, via_sorted(in), "reduce_sorted n=" + std::to_string(n));
    }
  }
}

// ---- the combining sort --------------------------------------------------------------------

template <class T, class Cmp>
void check_sort_sizes(std::size_t memory, std::size_t block, std::uint64_t d, const std::string& what) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt0 = options(bm, block);
  const std::uint64_t R = flow::algo::plan_run_formation<T, Cmp>(memory, opt0).run_elements;
  const std::uint64_t B = flow::algo::choose_geometry<T>(memory, block).elements;
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, B - 1, B + 1, R - 1, R, R + 1, 2 * R, 2 * R + 1, 5 * R + 3}) {
    for (keys k : {keys::random, keys::skewed, keys::all_equal, keys::all_distinct}) {
      for (bool keep_last : {false, true}) {
        const std::string w = what + " n=" + std::to_string(n) + " keys=" + std::to_string(static_cast<int>(k)) +
                              (keep_last ? " keep_last" : "");
        SCOPED_TRACE(w);
        const auto in = make_input<T>(static_cast<std::size_t>(n), k, d, n * 7 + static_cast<int>(k));
        expect_reduced(in, via_sort<T, Cmp>(in, memory, memory, options(bm, block, keep_last)), w);
        if (testing::Test::HasFatalFailure()) return;
        EXPECT_EQ(bm.allocated_bytes(), 0u);
      }
    }
  }
}

TEST(ReduceSort, DirectRadixAcrossRunAndBlockBoundaries) {
  check_sort_sizes<kv, kv_order>(1 << 20, 4096, 3000, "kv radix");
}
TEST(ReduceSort, ComparisonOrderAndPrefixKey) {
  check_sort_sizes<kv, kv_cmp_order>(1 << 20, 8192, 500, "kv compare");
  check_sort_sizes<kv, kv_prefix_order>(1 << 20, 4096, 3000, "kv prefix key");
}
TEST(ReduceSort, IndirectRadixForLargeRecords) {
  check_sort_sizes<big, big_order>(2 << 20, 8192, 2000, "big indirect");
}

TEST(ReduceSort, IntermediateMergePassesCombine) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt = options(bm, 4096);
  for (std::uint64_t d : {std::uint64_t{50}, std::uint64_t{20000}, std::uint64_t{1} << 40}) {
    const auto in = make_input<kv>(300000, keys::random, d, d);
    unsigned passes = 0;
    expect_reduced(in, via_sort<kv, kv_order>(in, 512 << 10, 128 << 10, opt, &passes),
                   "intermediate d=" + std::to_string(d));
    EXPECT_GE(passes, 2u) << "the runs outnumber the fan-in";
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
}

// With few keys, run formation writes each key once per run, merging reads that back
// and writes nothing: the exact numbers of the plan model; without combining the same
// input costs the whole sort's I/O.
TEST(ReduceSort, IoShrinksWithTheNumberOfKeys) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const std::size_t memory = 4 << 20, block = 4096;
  const auto opt = options(bm, block);
  const std::size_t n = std::size_t{4} << 20;
  const std::uint64_t d = 1000;
  const auto in = make_input<kv>(n, keys::random, d, 11);
  std::uint64_t combined_write = 0, combined_read = 0;
  {
    flow::io::scoped_stats phase;
    const auto out = via_sort<kv, kv_order>(in, memory, memory, opt);
    const auto io = phase.elapsed().total();
    combined_write = io.write_bytes;
    combined_read = io.read_bytes;
    expect_reduced(in, out, "4M elements, 1000 keys");
  }
  std::uint64_t plain_write = 0, plain_read = 0;
  {
    flow::io::scoped_stats phase;
    flow::algo::runs_creator<kv, kv_order> rc(memory, kv_order(), opt);
    rc.push(std::span<const kv>(in));
    auto runs = rc.result();
    EXPECT_GT(runs.run_count(), 10u);
    flow::algo::runs_merger<kv, kv_order> m(std::move(runs), memory, kv_order(), opt);
    EXPECT_EQ(flow::stream::count(m), n);
    const auto io = phase.elapsed().total();
    plain_write = io.write_bytes;
    plain_read = io.read_bytes;
  }
  const flow::plan::sort_setup s = flow::algo::sort_setup_of<kv, kv_order>(opt);
  const flow::plan::reduce_cost model = flow::plan::reduce_estimate(s, n, d, memory, memory);
  const flow::plan::sort_cost plain_model = flow::plan::sort_estimate(s, n, memory, memory);
  std::printf("[ reduce I/O ] %zu elements, %llu keys, %zu-byte budget: combining wrote %llu read %llu bytes "
              "(model %llu + %llu); plain sort wrote %llu read %llu (model %llu + %llu)\n",
              n, static_cast<unsigned long long>(d), memory, static_cast<unsigned long long>(combined_write),
              static_cast<unsigned long long>(combined_read),
              static_cast<unsigned long long>(model.sort.runs_write + model.sort.merge_write),
              static_cast<unsigned long long>(model.sort.merge_read), static_cast<unsigned long long>(plain_write),
              static_cast<unsigned long long>(plain_read),
              static_cast<unsigned long long>(plain_model.runs_write + plain_model.merge_write),
              static_cast<unsigned long long>(plain_model.merge_read));
  EXPECT_EQ(plain_write, n * sizeof(kv)) << "whole blocks: 4M * 16 bytes";
  EXPECT_LT(combined_write * 50, plain_write) << "each run holds each of the 1000 keys once";
  EXPECT_LT(combined_read * 50, plain_read);
  // every run of R random draws holds all 1000 keys: the model is exact here
  EXPECT_EQ(combined_write, model.sort.runs_write + model.sort.merge_write);
  EXPECT_EQ(combined_read, model.sort.merge_read);
  EXPECT_EQ(plain_write, plain_model.runs_write + plain_model.merge_write);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(ReduceSort, StaysWithinTheBudget) {
  flow::test::scratch_dir dir; // a real disk: a memory disk's blocks are not buffers
  flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
  const auto in = make_input<kv>(200000, keys::random, 100000, 5);
  for (std::size_t memory : {std::size_t{1} << 20, std::size_t{256} << 10}) {
    const std::uint64_t before = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    const auto out = via_sort<kv, kv_order>(in, memory, memory, options(bm, 4096));
    EXPECT_LE(flow::io::buffer_memory::peak() - before, memory) << "budget " << memory;
    expect_reduced(in, out, "budget");
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(ReduceSort, BudgetTooSmallThrows) {
  flow::mng::block_manager bm(flow::test::memory_config());
  using rr = flow::stream::reduce_runs<kv, kv_order, sum_count>;
  EXPECT_THROW(rr(10000, {}, options(bm, 4096)), std::invalid_argument);
}

// ---- the hash path -----------------------------------------------------------------------

TEST(ReduceHash, InMemoryAgainstReference) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt = options(bm, 4096);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257},
                        std::size_t{100000}}) {
    for (keys k : {keys::random, keys::skewed, keys::all_equal, keys::all_distinct}) {
      const std::uint64_t d = k == keys::all_distinct ? n : 3000;
      if (k == keys::all_distinct && n > 20000) continue; // would spill: see below
      const auto in = make_input<kv>(n, k, d, n + 3);
      flow::io::scoped_stats phase;
      std::size_t spills = 1;
      const auto out = via_hash(in, 1 << 20, 1 << 20, opt, &spills);
      expect_reduced(in, out, "hash n=" + std::to_string(n));
      EXPECT_EQ(spills, 0u);
      EXPECT_EQ(phase.elapsed().total().write_bytes, 0u) << "no I/O in memory";
    }
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// Keys that fit the table stay in it as the result, and the table's memory beyond them
// goes back: the merge that reads them is planned for their size (pagerank's reduce of
// 64 K keys kept its 14 MiB table into the next phase, planned at 5 MiB).
TEST(ReduceHash, AResultInMemoryKeepsOnlyItsKeysMemory) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt = options(bm, 4096);
  const auto in = make_input<kv>(200000, keys::random, 1000, 7);
  const std::uint64_t before = flow::io::buffer_memory::current();
  flow::stream::hash_reduce_runs<kv, kv_order, key_hash, same_key, sum_count> h(16 << 20, {}, opt);
  for (const auto& x : in) h.push(x);
  EXPECT_GT(flow::io::buffer_memory::current(), before + (8 << 20)); // the table
  flow::algo::sorted_runs<kv> runs = h.result();
  EXPECT_EQ(h.spills(), 0u);
  EXPECT_LE(flow::io::buffer_memory::current(), before + 1000 * sizeof(kv) + 4096);
  flow::stream::reduce_merge<kv, kv_order, sum_count> rm(std::move(runs), 1 << 20, {}, opt);
  std::vector<kv> out;
  flow::test::read_mixed(rm, out);
  expect_reduced(in, out, "hash, result kept in memory");
}

TEST(ReduceHash, SpillsWhenTheKeysOutgrowTheTable) {
  flow::mng::block_manager bm(flow::test::memory_config());
  for (bool keep_last : {false, true}) {
    const auto opt = options(bm, 4096, keep_last);
    const std::uint64_t capacity =
        flow::plan::hash_reduce(flow::algo::sort_setup_of<kv, kv_order>(opt), 1 << 20).capacity;
    ASSERT_GT(capacity, 1000u);
    for (keys k : {keys::random, keys::all_distinct, keys::skewed}) {
      // skewed: a tenth of the elements bring the distinct keys
      const auto in = make_input<kv>(static_cast<std::size_t>((k == keys::skewed ? 20 : 4) * capacity), k, 3 * capacity, 17);
      std::size_t spills = 0;
      const auto out = via_hash(in, 1 << 20, 1 << 20, opt, &spills);
      expect_reduced(in, out, "hash spilling");
      EXPECT_GE(spills, 1u);
      EXPECT_EQ(bm.allocated_bytes(), 0u);
    }
    // many spills with a small merge budget: intermediate passes combine the runs
    const auto in = make_input<big>(30000, keys::random, 20000, 3);
    expect_reduced(in, via_hash(in, 512 << 10, 160 << 10, options(bm, 8192, keep_last)), "big records, small budgets");
    EXPECT_EQ(bm.allocated_bytes(), 0u);
    // and with 4 KiB blocks, where the spills' first elements (one per block) outgrow the
    // metadata reserve: they go to disk, and the merge reads them back
    const auto many = make_input<big>(120000, keys::random, 100000, 5);
    expect_reduced(many, via_hash(many, 256 << 10, 96 << 10, options(bm, 4096, keep_last)), "firsts spilled");
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
}

TEST(ReduceHash, GrowsFromTheExpectedKeysAndSpillsAtTheBudget) {
  // A table sized for 10 keys grows (several doublings, the keys reinserted each time)
  // to hold thousands without writing, and spills once it fills the whole budget.
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt = options(bm, 4096);
  const std::uint64_t capacity =
      flow::plan::hash_reduce(flow::algo::sort_setup_of<kv, kv_order>(opt), 1 << 20).capacity;
  for (std::uint64_t distinct : {std::uint64_t{5000}, capacity / 2, 3 * capacity}) {
    for (keys k : {keys::random, keys::all_distinct}) {
      const std::size_t n = static_cast<std::size_t>(k == keys::all_distinct ? distinct : 4 * distinct);
      const auto in = make_input<kv>(n, k, distinct, distinct + 1);
      std::size_t spills = 0;
      flow::io::scoped_stats phase;
      const auto out = via_hash(in, 1 << 20, 1 << 20, opt, &spills, 10);
      expect_reduced(in, out, "hash growing to " + std::to_string(distinct) + " keys");
      if (distinct < capacity) {
        EXPECT_EQ(spills, 0u);
        EXPECT_EQ(phase.elapsed().total().write_bytes, 0u);
      } else {
        EXPECT_GE(spills, 1u);
      }
      EXPECT_EQ(bm.allocated_bytes(), 0u);
    }
  }
}

TEST(ReduceHash, StaysWithinTheBudgetAndThrowsBelowIt) {
  flow::test::scratch_dir dir;
  flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
  const auto opt = options(bm, 4096);
  for (std::uint64_t d : {std::uint64_t{1000}, std::uint64_t{200000}}) {
    const auto in = make_input<kv>(200000, keys::random, d, 9);
    const std::uint64_t before = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    const auto out = via_hash(in, 1 << 20, 1 << 20, opt);
    EXPECT_LE(flow::io::buffer_memory::peak() - before, std::uint64_t{1} << 20);
    expect_reduced(in, out, "hash budget");
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
  using hr = flow::stream::hash_reduce_runs<kv, kv_order, key_hash, same_key, sum_count>;
  EXPECT_THROW(hr(8192, {}, opt), std::invalid_argument);
}

// ---- the partitioned hash path on several threads -------------------------------------------

/// The hash path with `threads` threads and the budget and expected keys of a plan of
/// several partitions (checked), pushed in one go.
template <class T>
std::vector<T> via_partitioned_hash(const std::vector<T>& in, std::size_t memory, std::uint64_t expected_keys,
                                    flow::algo::sort_options opt, unsigned threads, std::size_t* spills = nullptr) {
  opt.threads = threads;
  flow::stream::hash_reduce_runs<T, kv_order, key_hash, same_key, sum_count> h(memory, {}, opt, {}, {}, {},
                                                                               expected_keys);
  EXPECT_GT(h.plan().partitions, 1u);
  for (const auto& x : in) h.push(x);
  if (spills) *spills = h.spills();
  flow::stream::reduce_merge<T, kv_order, sum_count> rm(h.result(), memory, {}, opt);
  std::vector<T> out;
  flow::test::read_mixed(rm, out);
  return out;
}

// Across the partitions' staging boundaries (a round starts when one staging area is
// full), with skewed keys, one key, all distinct keys and no input, at 1, 2, 3 and 8
// threads (8 on a machine of 2 cores too), in memory and spilling.
TEST(ReduceHashPartitioned, AgainstReferenceAtEveryThreadCount) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const auto opt = options(bm, 4096);
  const std::size_t memory = 8 << 20;
  const std::uint64_t expected = 200000;
  const auto shape = flow::plan::hash_reduce(flow::algo::sort_setup_of<kv, kv_order>(opt), memory, expected);
  ASSERT_GT(shape.partitions, 2u);
  const std::size_t staged = static_cast<std::size_t>(shape.staged);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, staged - 1, staged, staged + 1, 3 * staged * shape.partitions}) {
    for (keys k : {keys::random, keys::skewed, keys::all_equal, keys::all_distinct}) {
      const auto in = make_input<kv>(n, k, k == keys::all_distinct ? n : 150000, n + 11);
      const auto ref = reference(in);
      for (unsigned threads : flow::test::parallel_thread_counts({1u, 2u, 3u, 8u})) {
        std::size_t spills = 0;
        const auto out = via_partitioned_hash(in, memory, expected, opt, threads, &spills);
        ASSERT_EQ(out.size(), ref.size());
        EXPECT_EQ(std::memcmp(out.data(), ref.data(), ref.size() * sizeof(kv)), 0)
            << "n=" << n << " threads=" << threads;
        if (k != keys::all_distinct) {
          EXPECT_EQ(spills, 0u);
        }
      }
    }
  }
  // far more keys than expected: the partitions grow to the budget, then the table spills
  const auto many = make_input<kv>(1200000, keys::all_distinct, 0, 5);
  for (unsigned threads : flow::test::parallel_thread_counts({1u, 2u})) {
    std::size_t spills = 0;
    expect_reduced(many, via_partitioned_hash(many, memory, expected, opt, threads, &spills), "spilling");
    EXPECT_GE(spills, 1u);
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// A float combine gives different bits in a different order: each key is combined in
// input order and the table spills at the same elements at any thread count, so the
// sums are the same bits at 1, 2, 3 and 8 threads, spilling or not, with the insert
// rounds on the team or on the caller (sort_options::inserts_on_caller).
struct kd {
  std::uint64_t key;
  double sum;
};
struct kd_order {
  bool operator()(const kd& a, const kd& b) const { return a.key < b.key; }
  static kd min_value() { return {0, 0}; }
  static kd max_value() { return {UINT64_MAX, 0}; }
  using key_type = std::uint64_t;
  static key_type key(const kd& x) { return x.key; }
  static constexpr bool key_is_total = true;
};
struct sum_double {
  kd operator()(const kd& a, const kd& b) const { return {a.key, a.sum + b.sum}; }
};

TEST(ReduceHashPartitioned, FloatSumsAreTheSameBitsAtEveryThreadCount) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const std::size_t memory = 8 << 20;
  for (std::uint64_t distinct : {std::uint64_t{50000}, std::uint64_t{1200000}}) { // in memory; spilling
    std::mt19937_64 rng(distinct);
    std::vector<kd> in(1600000);
    for (auto& x : in) // magnitudes from 1e-8 to 1e8: the order of the additions shows
      x = {flow::test::mix(rng() % distinct), std::ldexp(static_cast<double>(rng() % 1000) + 1, static_cast<int>(rng() % 54) - 27)};
    std::vector<std::vector<kd>> outs;
    for (unsigned threads : {1u, 2u, 3u, 8u})
      for (bool on_caller : {false, true}) { // the rounds on the team, or on this thread beside a batched stretch
        auto opt = options(bm, 4096);
        opt.threads = threads;
        opt.inserts_on_caller = on_caller;
        flow::stream::hash_reduce_runs<kd, kd_order, key_hash, same_key, sum_double> h(memory, {}, opt, {}, {}, {}, 100000);
        ASSERT_GT(h.plan().partitions, 1u);
        for (const auto& x : in) h.push(x);
        EXPECT_EQ(h.spills() > 0, distinct > 1000000) << distinct;
        flow::stream::reduce_merge<kd, kd_order, sum_double> rm(h.result(), memory, {}, opt);
        std::vector<kd> out;
        flow::test::read_mixed(rm, out);
        outs.push_back(std::move(out));
      }
    for (std::size_t t = 1; t < outs.size(); ++t) {
      ASSERT_EQ(outs[t].size(), outs[0].size());
      EXPECT_EQ(std::memcmp(outs[t].data(), outs[0].data(), outs[0].size() * sizeof(kd)), 0) << "threads differ";
    }
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// ---- the plan model ------------------------------------------------------------------------

TEST(ReduceModel, CombiningShrinksTheSortAndTheHashTableSaysWhatFits) {
  const flow::plan::sort_setup s{.element_bytes = 16, .keyed = true, .block_bytes = 4096};
  const std::uint64_t n = 100'000'000, memory = 64 << 20;
  const auto plain = flow::plan::sort_estimate(s, n, memory, memory);
  const auto all = flow::plan::reduce_estimate(s, n, n, memory, memory);
  EXPECT_EQ(all.sort.io_bytes(), plain.io_bytes()) << "all keys distinct: a plain sort";
  const auto few = flow::plan::reduce_estimate(s, n, 1000, memory, memory);
  EXPECT_EQ(few.sort.runs, plain.runs);
  EXPECT_EQ(few.sort.runs_write, plain.runs * 4 * 4096) << "1000 keys * 16 bytes: 4 blocks per run";
  EXPECT_EQ(few.sort.merge_write, 0u);
  EXPECT_TRUE(few.hash_in_memory);
  EXPECT_FALSE(all.hash_in_memory);
  EXPECT_GT(few.hash_capacity, (memory / 17) / 4) << "grown from the size for 1000 keys";
  const auto some = flow::plan::reduce_estimate(s, n, 10'000'000, memory, 1 << 20);
  const auto some_plain = flow::plan::sort_estimate(s, n, memory, 1 << 20);
  EXPECT_GT(some_plain.passes, 1u);
  EXPECT_LT(some.sort.merge_write, some_plain.merge_write) << "intermediate passes combine too";
}

} // namespace
