// The sorter's parts on their own: parallel in-memory run sorting (radix with total and
// prefix keys, direct and indirect, comparison sort) against std::sort; k-way merging of
// segments; exact multiway splitting; parallel merging; the thread team.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/multiway_merge.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/algo/run_sort.hpp"
#include "test_support.hpp"

namespace {

using k64 = flow::test::keyed_ascending<std::uint64_t>; // total key
using c64 = flow::test::ascending<std::uint64_t>;       // comparison only
struct pair32 {
  std::uint32_t key, tie;
};
struct pair_order { // key() is only the high 16 bits of key: many equal keys, decided by the order
  bool operator()(const pair32& a, const pair32& b) const {
    return a.key < b.key || (a.key == b.key && a.tie < b.tie);
  }
  static pair32 min_value() { return {0, 0}; }
  static pair32 max_value() { return {UINT32_MAX, UINT32_MAX}; }
  using key_type = std::uint16_t;
  static key_type key(const pair32& p) { return static_cast<std::uint16_t>(p.key >> 16); }
  static constexpr bool key_is_total = false;
};
struct big {
  std::uint64_t key;
  unsigned char payload[56];
};
struct big_order { // 64-byte elements: indirect radix sorting
  bool operator()(const big& a, const big& b) const { return a.key < b.key; }
  static big min_value() { return {0, {}}; }
  static big max_value() { return {UINT64_MAX, {}}; }
  using key_type = std::uint64_t;
  static key_type key(const big& b) { return b.key; }
  static constexpr bool key_is_total = true;
};

template <class T, class Cmp> void check_sort_run(std::vector<T> v, unsigned threads) {
  std::vector<T> ref = v;
  std::sort(ref.begin(), ref.end(), Cmp());
  std::vector<T> scratch(v.size());
  std::vector<unsigned char> extra(v.size() * flow::algo::run_sort_traits<T, Cmp>::extra_bytes_per_element + 1);
  flow::algo::thread_team team(threads);
  const T* res = flow::algo::sort_run<T, Cmp>(v.data(), scratch.data(), v.size(), Cmp(), team, extra.data());
  ASSERT_TRUE(res == v.data() || res == scratch.data());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_FALSE(Cmp()(res[i], ref[i]) || Cmp()(ref[i], res[i])) << "at " << i << " of " << ref.size();
  }
}

std::vector<std::uint64_t> u64_input(std::size_t n, int kind, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) {
    switch (kind) {
    case 0: x = rng(); break;                           // full width
    case 1: x = rng() % 1000; break;                    // low bits only
    case 2: x = (rng() % 7) << 50; break;               // few values, high bits
    case 3: x = 42; break;                              // all equal
    case 4: x = (rng() & 0xff00ff00ff00ff00ull); break; // constant bytes in between
    default: x = UINT64_MAX - rng() % 3; break;         // at the maximum
    }
  }
  return v;
}

TEST(SortRunSort, RadixAndComparisonAgainstStdSort) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33},
                        std::size_t{1000}, std::size_t{70000}, std::size_t{300000}}) {
    for (int kind = 0; kind < 6; ++kind) {
      for (unsigned threads : {1u, 2u, 3u}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " kind=" + std::to_string(kind) + " threads=" + std::to_string(threads));
        check_sort_run<std::uint64_t, k64>(u64_input(n, kind, n + kind), threads);
        check_sort_run<std::uint64_t, c64>(u64_input(n, kind, n + kind), threads);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(SortRunSort, PrefixKeysFallBackToTheOrder) {
  std::mt19937 rng(5);
  for (std::size_t n : {std::size_t{100}, std::size_t{100000}, std::size_t{250000}}) {
    std::vector<pair32> v(n);
    for (auto& p : v) p = {static_cast<std::uint32_t>((rng() % 5) << 16 | (rng() & 0xffff)), static_cast<std::uint32_t>(rng())};
    check_sort_run<pair32, pair_order>(v, 2);
    for (auto& p : v) p.key = 7; // one key for all: only the order decides
    check_sort_run<pair32, pair_order>(v, 2);
  }
}

TEST(SortRunSort, IndirectRadixForLargeElements) {
  static_assert(flow::algo::run_sort_traits<big, big_order>::indirect);
  std::mt19937_64 rng(3);
  for (std::size_t n : {std::size_t{5}, std::size_t{5000}, std::size_t{200000}}) {
    std::vector<big> v(n);
    for (auto& b : v) {
      b.key = rng() % (n / 2 + 1);
      std::memset(b.payload, static_cast<int>(b.key & 0xff), sizeof b.payload);
    }
    check_sort_run<big, big_order>(v, 2);
  }
}

std::vector<std::vector<std::uint64_t>> sorted_seqs(std::size_t k, std::size_t max_len, std::uint64_t range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::uint64_t>> s(k);
  for (auto& q : s) {
    q.resize(rng() % (max_len + 1));
    for (auto& x : q) x = range ? rng() % range : rng();
    std::sort(q.begin(), q.end());
  }
  return s;
}

template <class Cmp> void check_merge(const std::vector<std::vector<std::uint64_t>>& seqs, unsigned threads) {
  std::vector<flow::algo::segment<std::uint64_t>> segs;
  std::vector<std::uint64_t> ref;
  for (const auto& q : seqs) {
    segs.push_back({q.data(), q.data() + q.size()});
    ref.insert(ref.end(), q.begin(), q.end());
  }
  std::sort(ref.begin(), ref.end());
  std::vector<std::uint64_t> out(ref.size());
  flow::algo::thread_team team(threads);
  std::uint64_t* end = flow::algo::parallel_merge<std::uint64_t, Cmp>(segs, out.data(), Cmp(), team, 0);
  ASSERT_EQ(end, out.data() + out.size());
  ASSERT_EQ(out, ref);
}

TEST(SortMultiwayMerge, SequentialAndParallelForManyFanIns) {
  for (std::size_t k : {1, 2, 3, 5, 8, 13, 40}) {
    for (std::uint64_t range : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{1} << 40}) {
      const auto seqs = sorted_seqs(k, 3000, range, k * 7 + range);
      for (unsigned threads : {1u, 2u, 4u}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " range=" + std::to_string(range) + " threads=" + std::to_string(threads));
        check_merge<k64>(seqs, threads);
        check_merge<c64>(seqs, threads);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Elements equal under the order but not alike (a key and where the element came from):
// by a comparison only, and by a prefix key that does not decide them.
struct tagged {
  std::uint32_t key, from;
};
struct tagged_by_comparison {
  bool operator()(const tagged& a, const tagged& b) const { return a.key < b.key; }
  static tagged min_value() { return {0, 0}; }
  static tagged max_value() { return {UINT32_MAX, UINT32_MAX}; }
};
struct tagged_by_prefix : tagged_by_comparison {
  using key_type = std::uint16_t;
  static key_type key(const tagged& t) { return static_cast<std::uint16_t>(t.key >> 16); }
  static constexpr bool key_is_total = false;
};

template <class Cmp> void check_stable_merge(unsigned threads) {
  std::mt19937_64 rng(threads);
  std::vector<std::vector<tagged>> seqs(7);
  std::vector<flow::algo::segment<tagged>> segs;
  std::vector<tagged> ref;
  for (std::uint32_t s = 0; s < seqs.size(); ++s) {
    for (std::uint32_t i = 0; i < 2000 + 300 * s; ++i) seqs[s].push_back({static_cast<std::uint32_t>(rng() % 50) << 16, s << 16 | i});
    std::stable_sort(seqs[s].begin(), seqs[s].end(), Cmp());
    segs.push_back({seqs[s].data(), seqs[s].data() + seqs[s].size()});
    ref.insert(ref.end(), seqs[s].begin(), seqs[s].end());
  }
  std::stable_sort(ref.begin(), ref.end(), Cmp()); // equal elements in segment order
  std::vector<tagged> out(ref.size());
  flow::algo::thread_team team(threads);
  flow::algo::parallel_merge<tagged, Cmp>(segs, out.data(), Cmp(), team, 0);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(out[i].key, ref[i].key) << i;
    ASSERT_EQ(out[i].from, ref[i].from) << i;
  }
}

// Equal elements come in segment order on any number of threads, so that a combining
// merge folds them in the same order (a float sum's bits) at every --threads.
TEST(SortMultiwayMerge, EqualElementsInSegmentOrderOnEveryThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    check_stable_merge<tagged_by_comparison>(threads);
    check_stable_merge<tagged_by_prefix>(threads);
  }
}

TEST(SortMultiwayMerge, KeysAtTheMaximumAreNotMistakenForExhaustedSegments) {
  std::vector<std::vector<std::uint64_t>> seqs = {{1, UINT64_MAX, UINT64_MAX}, {UINT64_MAX}, {}, {0, UINT64_MAX}};
  check_merge<k64>(seqs, 1);
  check_merge<c64>(seqs, 1);
}

TEST(SortMultiwayMerge, ExactSplitsAreNestedAndValid) {
  for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{4}, std::uint64_t{1000000}}) {
    const auto seqs = sorted_seqs(9, 500, range, range);
    std::vector<flow::algo::segment<std::uint64_t>> segs;
    std::size_t total = 0;
    for (const auto& q : seqs) {
      segs.push_back({q.data(), q.data() + q.size()});
      total += q.size();
    }
    std::vector<std::size_t> prev(segs.size(), 0), cut(segs.size());
    for (std::size_t rank = 0; rank <= total; rank += 1 + total / 37) {
      flow::algo::multiway_split<std::uint64_t, k64>(segs, rank, k64(), cut.data());
      std::size_t sum = 0;
      std::uint64_t max_left = 0, min_right = UINT64_MAX;
      for (std::size_t i = 0; i < segs.size(); ++i) {
        sum += cut[i];
        ASSERT_GE(cut[i], prev[i]) << "nested";
        if (cut[i] > 0) max_left = std::max(max_left, seqs[i][cut[i] - 1]);
        if (cut[i] < seqs[i].size()) min_right = std::min(min_right, seqs[i][cut[i]]);
      }
      ASSERT_EQ(sum, rank);
      ASSERT_LE(max_left, min_right);
      prev = cut;
    }
  }
}

TEST(SortThreads, TeamRunsEveryIndexAndPropagatesErrors) {
  flow::algo::thread_team team(3);
  std::atomic<int> mask{0};
  for (int round = 0; round < 50; ++round) {
    mask = 0;
    team.run([&](unsigned i) { mask |= 1 << i; });
    ASSERT_EQ(mask.load(), 7);
  }
  EXPECT_THROW(team.run([](unsigned i) {
    if (i == 2) throw std::runtime_error("x");
  }),
               std::runtime_error);
  team.run([&](unsigned) {}); // still usable
  flow::algo::background_worker w;
  std::atomic<int> done{0};
  for (int i = 0; i < 10; ++i) w.submit([&] { ++done; });
  w.submit([] { throw std::runtime_error("y"); });
  EXPECT_THROW(w.wait(), std::runtime_error);
  EXPECT_EQ(done.load(), 10);
  w.wait(); // the error is reported once
}

// start() sets the helpers going and returns; the caller works beside them (here on
// the same counter) until wait(), which rethrows a helper's exception.
TEST(SortThreads, StartRunsTheHelpersWhileTheCallerWorks) {
  for (unsigned size : {1u, 2u, 4u}) {
    flow::algo::thread_team team(size);
    for (int round = 0; round < 50; ++round) {
      std::atomic<int> left{1000}, mine{0}, mask{0};
      auto take = [&] {
        int n = 0;
        while (left.fetch_sub(1) > 0) ++n;
        return n;
      };
      std::atomic<int> theirs{0};
      team.start([&](unsigned i) {
        mask |= 1 << i;
        theirs += take();
      });
      mine = take();
      team.wait();
      EXPECT_EQ(mine + theirs, 1000);
      EXPECT_EQ(mask.load(), (1 << size) - 2) << "every helper ran, not index 0";
    }
    if (size > 1) {
      team.start([](unsigned) { throw std::runtime_error("z"); });
      EXPECT_THROW(team.wait(), std::runtime_error);
      team.run([](unsigned) {}); // still usable
    }
  }
}

} // namespace
