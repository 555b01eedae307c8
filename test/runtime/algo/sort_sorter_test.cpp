// The external sorter against std::sort / std::stable_sort: record sizes 4, 8, 16, 24 and
// 100 bytes (100 = a 10-byte key and payload), keyed (radix) and comparison-only orders,
// random / sorted / reverse / all-equal / few-distinct inputs, sizes 0, 1, around block
// and run boundaries and several times the budget, one and several merge passes, on a
// memory disk and on O_DIRECT files; the memory budget (buffers + heap, counted by an
// allocation counter) and the I/O volume against sort_estimate.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/sorter.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/error.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/progress.hpp"
#include "test_support.hpp"

// ---- a heap allocation counter for the whole test binary (counts, never changes behaviour)
namespace {
std::atomic<std::int64_t> heap_current{0};
std::atomic<std::int64_t> heap_peak{0};
void count_alloc(void* p) {
  if (!p) return;
  const auto now = heap_current.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p))) +
                   static_cast<std::int64_t>(malloc_usable_size(p));
  auto peak = heap_peak.load(std::memory_order_relaxed);
  while (now > peak && !heap_peak.compare_exchange_weak(peak, now)) {
  }
}
void counted_free(void* p) noexcept {
  if (p) heap_current.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}
void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  count_alloc(p);
  return p;
}
void* counted_aligned(std::size_t n, std::size_t a) {
  void* p = nullptr;
  if (posix_memalign(&p, std::max(a, sizeof(void*)), n ? n : 1) != 0) throw std::bad_alloc();
  count_alloc(p);
  return p;
}
} // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }

namespace {

using flow::test::mix;

// ---- element types and orders -------------------------------------------------------

using u32_order = flow::test::keyed_ascending<std::uint32_t>; // keyed, total
using u64_order = flow::test::ascending<std::uint64_t>;       // comparison only

struct edge {
  std::uint32_t src, dst, a, b;
};
struct edge_order { // keyed by (src, dst), total; payload a, b not part of the order
  bool operator()(const edge& x, const edge& y) const {
    return x.src < y.src || (x.src == y.src && x.dst < y.dst);
  }
  static edge min_value() { return {0, 0, 0, 0}; }
  static edge max_value() { return {UINT32_MAX, UINT32_MAX, 0, 0}; }
  using key_type = std::uint64_t;
  static key_type key(const edge& e) { return (std::uint64_t{e.src} << 32) | e.dst; }
  static constexpr bool key_is_total = true;
};
struct edge_cmp_order { // the same order without a key
  bool operator()(const edge& x, const edge& y) const { return edge_order()(x, y); }
  static edge min_value() { return edge_order::min_value(); }
  static edge max_value() { return edge_order::max_value(); }
};

template <std::size_t N> struct rec {
  unsigned char b[N];
};
template <std::size_t N> rec<N> filled(unsigned char c) {
  rec<N> r;
  std::memset(r.b, c, N);
  return r;
}
inline std::uint64_t be64(const unsigned char* p) {
  std::uint64_t k;
  std::memcpy(&k, p, 8);
  return __builtin_bswap64(k);
}

/// Records of N bytes in the order of their first Bytes bytes (memcmp), comparison only.
template <std::size_t N, std::size_t Bytes> struct prefix_order {
  bool operator()(const rec<N>& x, const rec<N>& y) const { return std::memcmp(x.b, y.b, Bytes) < 0; }
  static rec<N> min_value() { return filled<N>(0); }
  static rec<N> max_value() { return filled<N>(255); }
};
/// The same order with its first 8 bytes as a radix key that does not decide it: radix + ties.
template <std::size_t N, std::size_t Bytes> struct be64_prefix_order : prefix_order<N, Bytes> {
  using key_type = std::uint64_t;
  static key_type key(const rec<N>& r) { return be64(r.b); }
  static constexpr bool key_is_total = false;
};

using rec24_order = prefix_order<24, 24>;              // whole 24 bytes, comparison only
using rec24_prefix_order = be64_prefix_order<24, 12>;  // first 12 bytes; key = first 8 (not total)
using rec100_order = be64_prefix_order<100, 10>;       // sort-benchmark records: 10-byte key; key = first 8 bytes
struct rec100_wide_order : prefix_order<100, 10> { // the same with the whole 10-byte key in an unsigned __int128
  using key_type = unsigned __int128;
  static key_type key(const rec<100>& r) {
    unsigned __int128 k = 0;
    for (int i = 0; i < 10; ++i) k = (k << 8) | r.b[i];
    return k << 48;
  }
  static constexpr bool key_is_total = true;
};
using rec100_cmp_order = prefix_order<100, 10>; // comparison only

// ---- inputs --------------------------------------------------------------------------

enum class dist { random, sorted, reverse, all_equal, few_distinct };
const char* name(dist d) {
  switch (d) {
  case dist::random: return "random";
  case dist::sorted: return "sorted";
  case dist::reverse: return "reverse";
  case dist::all_equal: return "all-equal";
  case dist::few_distinct: return "few-distinct";
  }
  return "?";
}
constexpr dist all_dists[] = {dist::random, dist::sorted, dist::reverse, dist::all_equal, dist::few_distinct};

template <class T> T random_value(std::uint64_t i) {
  T v;
  unsigned char* p = reinterpret_cast<unsigned char*>(&v);
  for (std::size_t k = 0; k < sizeof(T); k += 8) {
    const std::uint64_t x = mix(i * 977 + k);
    std::memcpy(p + k, &x, std::min<std::size_t>(8, sizeof(T) - k));
  }
  return v;
}

// Leading bytes of T that the order looks at (the rest is payload).
template <class T, class Cmp> constexpr std::size_t key_bytes() {
  if constexpr (std::is_same_v<T, edge>) return 8;
  else if constexpr (std::is_same_v<Cmp, rec24_prefix_order>) return 12;
  else if constexpr (sizeof(T) == 100) return 10;
  else return sizeof(T);
}

template <class T, class Cmp> std::vector<T> make_input(std::size_t n, dist d, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = random_value<T>(seed * 1000003 + i);
  constexpr std::size_t kb = key_bytes<T, Cmp>();
  if (d == dist::all_equal || d == dist::few_distinct) {
    const std::size_t distinct = d == dist::all_equal ? 1 : 5;
    for (std::size_t i = 0; i < n; ++i) {
      const T k = random_value<T>(seed * 31 + (mix(i) % distinct));
      std::memcpy(reinterpret_cast<unsigned char*>(&v[i]), reinterpret_cast<const unsigned char*>(&k), kb);
    }
  }
  if (d == dist::sorted) std::stable_sort(v.begin(), v.end(), Cmp());
  if (d == dist::reverse) {
    std::stable_sort(v.begin(), v.end(), Cmp());
    std::reverse(v.begin(), v.end());
  }
  return v;
}

// out is sorted and a permutation of in. The reference is std::stable_sort of in; out
// must agree with it on every equivalence class as a multiset (the sorter is not stable,
// so equal keys with different payloads may come in another order).
template <class T, class Cmp> void expect_sorted_permutation(const std::vector<T>& in, const std::vector<T>& out, const std::string& what) {
  ASSERT_EQ(out.size(), in.size()) << what;
  const Cmp cmp;
  for (std::size_t i = 1; i < out.size(); ++i) {
    ASSERT_FALSE(cmp(out[i], out[i - 1])) << what << ": not sorted at " << i;
  }
  std::vector<T> ref = in;
  std::stable_sort(ref.begin(), ref.end(), cmp);
  auto full = [&](const T& a, const T& b) {
    if (cmp(a, b)) return true;
    if (cmp(b, a)) return false;
    return std::memcmp(&a, &b, sizeof(T)) < 0;
  };
  std::vector<T> x = out;
  std::sort(ref.begin(), ref.end(), full);
  std::sort(x.begin(), x.end(), full);
  ASSERT_EQ(0, x.empty() ? 0 : std::memcmp(x.data(), ref.data(), x.size() * sizeof(T)))
      << what << ": not a permutation of the input";
}

template <class T, class Cmp>
std::vector<T> run_sorter(const std::vector<T>& in, std::size_t memory, flow::mng::block_manager& bm,
                          std::size_t block_bytes, unsigned threads, unsigned* passes = nullptr) {
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = block_bytes, .threads = threads};
  flow::algo::sorter<T, Cmp> s(memory, Cmp(), opt);
  // half pushed one by one, half as a span
  const std::size_t half = in.size() / 2;
  for (std::size_t i = 0; i < half; ++i) s.push(in[i]);
  s.push(std::span<const T>(in.data() + half, in.size() - half));
  s.finish();
  std::vector<T> out;
  out.reserve(in.size());
  flow::test::read_mixed(s, out);
  if (passes) *passes = s.merge_passes();
  return out;
}

// ---- typed property tests ------------------------------------------------------------

template <class T, class Cmp, std::size_t Memory, std::size_t Block> struct sort_case {
  using value_type = T;
  using order = Cmp;
  static constexpr std::size_t memory = Memory;
  static constexpr std::size_t block = Block;
};

template <class C> class SortSorterProperty : public ::testing::Test {};
using cases = ::testing::Types<
    sort_case<std::uint32_t, u32_order, 256 << 10, 4096>,
    sort_case<std::uint64_t, u64_order, 256 << 10, 4096>,
    sort_case<edge, edge_order, 512 << 10, 8192>,
    sort_case<edge, edge_cmp_order, 512 << 10, 8192>,
    sort_case<rec<24>, rec24_order, 512 << 10, 12288>,
    sort_case<rec<24>, rec24_prefix_order, 512 << 10, 12288>,
    sort_case<rec<100>, rec100_order, 2 << 20, 102400>,
    sort_case<rec<100>, rec100_wide_order, 2 << 20, 102400>,
    sort_case<rec<100>, rec100_cmp_order, 2 << 20, 102400>>;
TYPED_TEST_SUITE(SortSorterProperty, cases);

template <class C> std::vector<std::size_t> interesting_sizes() {
  using T = typename C::value_type;
  const flow::algo::sort_options opt{.block_bytes = C::block};
  const auto plan = flow::algo::plan_run_formation<T, typename C::order>(C::memory, opt);
  const std::size_t B = plan.geometry.elements, R = plan.run_elements;
  // R and 2R: the first one or two runs stay in memory; 2R + 1 is the first external size
  return {0, 1, 2, B - 1, B, B + 1, R - 1, R, R + 1, 2 * R, 2 * R + 1, 3 * R + B / 2,
          5 * (C::memory / sizeof(T))};
}

TYPED_TEST(SortSorterProperty, MemoryDiskAllDistributionsAndBoundarySizes) {
  using T = typename TypeParam::value_type;
  using Cmp = typename TypeParam::order;
  flow::mng::block_manager bm(flow::test::memory_config());
  std::uint64_t seed = 1;
  for (dist d : all_dists) {
    for (std::size_t n : interesting_sizes<TypeParam>()) {
      const auto in = make_input<T, Cmp>(n, d, ++seed);
      const auto out = run_sorter<T, Cmp>(in, TypeParam::memory, bm, TypeParam::block, 2);
      expect_sorted_permutation<T, Cmp>(in, out, std::string(name(d)) + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u) << "every block is freed";
}

TYPED_TEST(SortSorterProperty, DirectDiskRandomAndBoundarySizes) {
  using T = typename TypeParam::value_type;
  using Cmp = typename TypeParam::order;
  flow::test::scratch_dir dir;
  {
    flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
    std::uint64_t seed = 100;
    for (std::size_t n : interesting_sizes<TypeParam>()) {
      const auto in = make_input<T, Cmp>(n, dist::random, ++seed);
      const auto out = run_sorter<T, Cmp>(in, TypeParam::memory, bm, TypeParam::block, 2);
      expect_sorted_permutation<T, Cmp>(in, out, "direct n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
  EXPECT_TRUE(dir.entries().empty()) << "the disk file is removed";
}

TYPED_TEST(SortSorterProperty, OneThreadAndThreeThreads) {
  using T = typename TypeParam::value_type;
  using Cmp = typename TypeParam::order;
  flow::mng::block_manager bm(flow::test::memory_config());
  const std::size_t n = 3 * (TypeParam::memory / sizeof(T)) + 17;
  for (unsigned threads : {1u, 3u}) {
    const auto in = make_input<T, Cmp>(n, dist::few_distinct, threads);
    const auto out = run_sorter<T, Cmp>(in, TypeParam::memory, bm, TypeParam::block, threads);
    expect_sorted_permutation<T, Cmp>(in, out, "threads=" + std::to_string(threads));
  }
}

TYPED_TEST(SortSorterProperty, TinyBudgetForcesSeveralMergePasses) {
  using T = typename TypeParam::value_type;
  using Cmp = typename TypeParam::order;
  flow::mng::block_manager bm(flow::test::memory_config());
  // room for a few blocks only: the fan-in is smaller than the number of runs
  const std::size_t block = TypeParam::block;
  const std::size_t memory = sizeof(T) >= 100 ? 24 * block : 16 * block + (128 << 10);
  const flow::algo::sort_options opt{.block_bytes = block};
  const auto plan = flow::algo::plan_run_formation<T, Cmp>(memory, opt);
  const std::size_t n = 40 * plan.run_elements + 5;
  for (dist d : {dist::random, dist::few_distinct}) {
    const auto in = make_input<T, Cmp>(n, d, 7);
    unsigned passes = 0;
    const auto out = run_sorter<T, Cmp>(in, memory, bm, block, 2, &passes);
    expect_sorted_permutation<T, Cmp>(in, out, name(d));
    EXPECT_GE(passes, 2u) << name(d);
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// ---- memory budget -------------------------------------------------------------------

struct budget_probe {
  std::int64_t heap0 = heap_current.load();
  std::uint64_t buf0 = flow::io::buffer_memory::current();
  budget_probe() {
    heap_peak.store(heap_current.load());
    flow::io::buffer_memory::reset_peak();
  }
  std::int64_t used() const {
    return (heap_peak.load() - heap0) +
           static_cast<std::int64_t>(flow::io::buffer_memory::peak() - buf0);
  }
};

template <class T, class Cmp>
void check_budget(std::size_t n, std::size_t memory, std::size_t block, dist d, const std::string& what) {
  // a real disk: a memory disk's contents would count as heap
  flow::test::scratch_dir dir;
  flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
  const auto in = make_input<T, Cmp>(n, d, 3);
  std::vector<T> out;
  out.reserve(n);
  std::int64_t used = 0;
  unsigned passes = 0;
  {
    budget_probe probe;
    const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = block};
    flow::algo::sorter<T, Cmp> s(memory, Cmp(), opt);
    s.push(std::span<const T>(in));
    s.finish();
    for (; !s.empty(); ++s) out.push_back(*s);
    passes = s.merge_passes();
    used = probe.used();
  }
  expect_sorted_permutation<T, Cmp>(in, out, what);
  EXPECT_LE(used, static_cast<std::int64_t>(memory))
      << what << ": buffers + heap peaked at " << used << " bytes (passes " << passes << ")";
  EXPECT_GT(used, static_cast<std::int64_t>(memory / 4)) << what << ": the budget is used";
}

TEST(SortSorterBudget, NeverExceedsTheBudget) {
  check_budget<edge, edge_order>(1000, 1 << 20, 8192, dist::random, "edges in memory");
  check_budget<edge, edge_order>(30000, 1 << 20, 8192, dist::random, "edges, two runs in memory");
  check_budget<edge, edge_order>(200000, 1 << 20, 8192, dist::random, "edges one pass");
  check_budget<edge, edge_order>(200000, 256 << 10, 8192, dist::random, "edges two passes");
  check_budget<std::uint64_t, u64_order>(300000, 1 << 20, 4096, dist::few_distinct, "u64 compare");
  check_budget<rec<100>, rec100_order>(40000, 2 << 20, 102400, dist::random, "rec100 indirect");
  check_budget<rec<100>, rec100_order>(60000, 1200 << 10, 102400, dist::random, "rec100 two passes");
}

// ---- split phases, I/O accounting ------------------------------------------------------

// The first of the split phases: `in`'s sorted runs from a runs_creator given `memory`.
template <class T, class Cmp>
flow::algo::sorted_runs<T> create_runs(const std::vector<T>& in, std::size_t memory,
                                       const flow::algo::sort_options& opt) {
  flow::algo::runs_creator<T, Cmp> rc(memory, Cmp(), opt);
  rc.push(std::span<const T>(in));
  return rc.result();
}

TEST(SortSorterPhases, RunsCreatorAndMergerAsSeparateObjects) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 8192};
  const auto in = make_input<edge, edge_order>(100000, dist::random, 9);
  flow::algo::sorted_runs<edge> runs;
  {
    flow::algo::runs_creator<edge, edge_order> rc(512 << 10, edge_order(), opt);
    for (const auto& e : in) rc.push(e);
    EXPECT_EQ(rc.size(), in.size());
    runs = rc.result();
  }
  EXPECT_FALSE(runs.in_memory());
  EXPECT_GT(runs.run_count(), 2u);
  EXPECT_EQ(runs.size(), in.size());
  // the runs outlive their creator; merge them later with another budget
  flow::algo::runs_merger<edge, edge_order> m(std::move(runs), 1 << 20, edge_order(), opt);
  EXPECT_EQ(m.size(), in.size());
  std::vector<edge> out;
  for (; !m.empty(); ++m) out.push_back(*m);
  expect_sorted_permutation<edge, edge_order>(in, out, "split");
  EXPECT_EQ(m.merge_passes(), 1u);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

// What a progress bar hears of the intermediate merge passes (flow/progress.hpp): from 0
// to a total that is the elements those passes write, as the I/O counters see them.
struct pass_reports {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen; // (done, total)
  flow::io::stats_snapshot first, last;                    // at the first and the last report
  static void hear(void* self, std::uint64_t done, std::uint64_t total) noexcept {
    auto& r = *static_cast<pass_reports*>(self);
    if (r.seen.empty()) r.first = flow::io::stats::instance().snapshot();
    r.seen.push_back({done, total});
    r.last = flow::io::stats::instance().snapshot();
  }
};

TEST(SortSorterPhases, IntermediatePassesReportTheirProgress) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 8192};
  const auto in = make_input<edge, edge_order>(200000, dist::random, 5);
  auto runs = create_runs<edge, edge_order>(in, 256 << 10, opt);
  pass_reports r;
  flow::progress::listen(&pass_reports::hear, &r);
  struct stop {
    ~stop() { flow::progress::listen(nullptr, nullptr); }
  } stop_listening;
  flow::algo::runs_merger<edge, edge_order> m(std::move(runs), 96 << 10, edge_order(), opt);
  ASSERT_GE(m.merge_passes(), 2u);
  const std::size_t reports = r.seen.size();
  std::vector<edge> out;
  for (; !m.empty(); ++m) out.push_back(*m);
  expect_sorted_permutation<edge, edge_order>(in, out, "intermediate passes");
  EXPECT_EQ(r.seen.size(), reports) << "the final merge is the phase's own elements, not reported";
  ASSERT_GT(r.seen.size(), 2u);
  EXPECT_EQ(r.seen.front().first, 0u);
  for (std::size_t i = 1; i < r.seen.size(); ++i) {
    EXPECT_GE(r.seen[i].first, r.seen[i - 1].first) << i;
    EXPECT_LE(r.seen[i].first, r.seen[i].second) << i;
  }
  const std::uint64_t total = r.seen.back().second;
  EXPECT_EQ(r.seen.back().first, total);
  // the passes merge more than a share of the input, and less than all of it per pass
  EXPECT_GT(total, in.size() / 4);
  EXPECT_LE(total, in.size() * (m.merge_passes() - 1));
  // what they wrote: every element merged, in whole blocks
  const std::uint64_t written = (r.last - r.first).total().write_bytes;
  EXPECT_GE(written, total * sizeof(edge));
  EXPECT_LE(written, total * sizeof(edge) + r.seen.size() * 8192);
}

TEST(SortSorterPhases, LastRunKeptInMemoryIsMergedFromThereOrWrittenFirst) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 8192, .keep_last_run = true};
  const auto in = make_input<edge, edge_order>(100000, dist::few_distinct, 4);
  for (std::size_t merge_memory : {std::size_t{1} << 20, std::size_t{160} << 10}) {
    auto runs = create_runs<edge, edge_order>(in, 512 << 10, opt);
    EXPECT_GT(runs.memory_bytes(), 0u);
    EXPECT_FALSE(runs.in_memory()) << "disk runs and one run in memory";
    EXPECT_EQ(runs.size(), in.size());
    const std::size_t disk_runs = runs.run_count();
    flow::io::scoped_stats phase;
    flow::algo::runs_merger<edge, edge_order> m(std::move(runs), merge_memory, edge_order(), opt);
    std::vector<edge> out;
    for (; !m.empty(); ++m) out.push_back(*m);
    expect_sorted_permutation<edge, edge_order>(in, out, "merge memory " + std::to_string(merge_memory));
    const auto io = phase.elapsed().total();
    if (merge_memory == (std::size_t{1} << 20)) {
      EXPECT_EQ(io.write_bytes, 0u) << "merged from memory";
      EXPECT_EQ(m.merge_passes(), 1u);
    } else {
      EXPECT_GT(io.write_bytes, 0u) << "the last run is written before merging";
      EXPECT_GE(disk_runs + 1, 2u);
    }
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
}

// A merge that accepts its runs (its budget holds two of them and their metadata) merges
// them to the end, also where its budget holds only four block buffers: a sort whose count
// was an estimate writes more runs than its merge was planned for, and a budget accepted
// at start used to stop mid-run ("too small for a second merge pass", 3 of 300 generated
// scripts at their least budget). Every budget from where the merger accepts the runs up.
TEST(SortSorterPhases, EveryBudgetThatTakesTheRunsMergesThemToTheEnd) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096};
  const auto in = make_input<edge, edge_order>(30000, dist::random, 11);
  int accepted = 0, with_passes = 0;
  for (std::size_t memory = 16 << 10; memory <= 72 << 10; memory += 1024) {
    auto runs = create_runs<edge, edge_order>(in, 64 << 10, opt);
    ASSERT_GT(runs.run_count(), 8u);
    try {
      flow::algo::runs_merger<edge, edge_order> m(std::move(runs), memory, edge_order(), opt);
      ++accepted;
      with_passes += m.merge_passes() > 1;
      std::vector<edge> out;
      for (; !m.empty(); ++m) out.push_back(*m);
      expect_sorted_permutation<edge, edge_order>(in, out, "budget " + std::to_string(memory));
    } catch (const std::invalid_argument& e) {
      // Refused before merging anything: two runs' blocks and the metadata do not fit.
      EXPECT_NE(std::string(e.what()).find("needs a memory budget of at least"), std::string::npos)
          << "budget " << memory << ": " << e.what();
      EXPECT_EQ(accepted, 0) << "a larger budget was refused: " << memory;
    }
    EXPECT_EQ(bm.allocated_bytes(), 0u) << memory;
  }
  EXPECT_GT(accepted, 20);
  EXPECT_GT(with_passes, 10) << "intermediate passes at the small budgets";
}

TEST(SortSorterPhases, UnmergedRunsAreFreed) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096};
  {
    flow::algo::runs_creator<std::uint32_t, u32_order> rc(64 << 10, u32_order(), opt);
    for (std::uint32_t i = 0; i < 100000; ++i) rc.push(i * 2654435761u);
    auto runs = rc.result();
    EXPECT_GT(bm.allocated_bytes(), 0u);
    flow::algo::runs_merger<std::uint32_t, u32_order> m(std::move(runs), 64 << 10, u32_order(), opt);
    for (int i = 0; i < 1000; ++i) ++m; // abandoned half way
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
  { // a creator destroyed without result()
    flow::algo::runs_creator<std::uint32_t, u32_order> rc(64 << 10, u32_order(), opt);
    for (std::uint32_t i = 0; i < 100000; ++i) rc.push(i);
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(SortSorterIo, MeasuredVolumeMatchesTheEstimate) {
  flow::test::scratch_dir dir;
  flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 16384};
  const std::size_t memory = 1 << 20;
  for (std::size_t n : {std::size_t{1000}, std::size_t{30000}, std::size_t{300000}}) {
    const auto in = make_input<edge, edge_order>(n, dist::random, 11);
    flow::io::scoped_stats phase;
    const auto out = run_sorter<edge, edge_order>(in, memory, bm, opt.block_bytes, 2);
    const auto io = phase.elapsed().total();
    const auto est = flow::algo::sort_estimate<edge, edge_order>(n, memory, opt);
    if (est.in_memory) {
      EXPECT_EQ(io.read_bytes + io.write_bytes, 0u);
    } else {
      EXPECT_EQ(est.merge_passes, 1u);
      EXPECT_EQ(io.read_bytes, io.write_bytes);
      EXPECT_EQ(io.read_bytes + io.write_bytes, est.io_bytes) << "n=" << n;
      // about 2 N s per pass: whole blocks, at most one partial block per run; the
      // sorter keeps its last run in memory when the merge can afford it
      const auto plan = flow::algo::plan_run_formation<edge, edge_order>(memory, opt);
      EXPECT_TRUE(est.last_run_in_memory);
      EXPECT_GE(io.write_bytes, (n - plan.run_elements) * sizeof(edge));
      EXPECT_LE(io.write_bytes, n * sizeof(edge) + est.runs * opt.block_bytes);
    }
  }
}

template <class T, class Cmp> void check_in_memory_threshold(std::size_t memory, std::size_t block) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = block};
  const auto plan = flow::algo::plan_run_formation<T, Cmp>(memory, opt);
  const std::size_t limit = plan.run_elements * (plan.slots >= 3 ? 2 : 1);
  for (std::size_t n : {limit, limit + 1}) {
    const auto in = make_input<T, Cmp>(n, dist::random, 5);
    flow::io::scoped_stats phase;
    const auto out = run_sorter<T, Cmp>(in, memory, bm, block, 2);
    const auto io = phase.elapsed().total();
    const auto est = flow::algo::sort_estimate<T, Cmp>(n, memory, opt);
    EXPECT_EQ(est.in_memory, n == limit) << "n=" << n;
    EXPECT_EQ(io.read_bytes + io.write_bytes == 0, est.in_memory) << "n=" << n;
    if (!est.in_memory) {
      EXPECT_EQ(io.read_bytes + io.write_bytes, est.io_bytes) << "n=" << n;
    }
    expect_sorted_permutation<T, Cmp>(in, out, "threshold n=" + std::to_string(n));
  }
}

TEST(SortSorterIo, InMemoryUpToTwoRunsOrOneForIndirectSorting) {
  check_in_memory_threshold<edge, edge_order>(1 << 20, 8192);        // three slots: 2R
  check_in_memory_threshold<rec<100>, rec100_order>(2 << 20, 102400); // two slots: R
  check_in_memory_threshold<rec<100>, rec100_cmp_order>(2 << 20, 102400);
}

TEST(SortSorterErrors, TooSmallBudgetSaysHowMuchIsNeeded) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 1 << 20};
  try {
    flow::algo::sorter<edge, edge_order> s(1 << 20, edge_order(), opt);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at least"), std::string::npos) << e.what();
  }
}

// Large records in small blocks (a str of 256 bytes in 4 KiB blocks): the runs' metadata,
// one record per block, is 1/16 of the data. The creator claims a run's metadata when it
// writes the run, so input that ends just as the reserve fills is sorted (it once failed
// for lack of room for a run that never came); a run past the reserve stops the sort with
// a message that names the reserve, and no block stays allocated.
TEST(SortSorterMetadata, FirstsThatOutgrowTheReserveGoToDiskAndTheSortFinishes) {
  // 256-byte records in 4 KiB blocks: a run's first elements are 1/16 of its data, and a
  // 256 KiB sort's reserve holds those of about 300 KiB. A sort that gets far more than
  // its plan counted (16x the budget here) moves the finished runs' firsts to disk, and
  // its merge, within the same budget, reads them back a page at a time; it refused
  // ("the runs' metadata outgrows its reserve") at 1152 records.
  using wide = rec<256>;
  using wide_order = be64_prefix_order<256, 16>;
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096, .threads = 1};
  const std::size_t memory = 256 << 10;
  for (const std::size_t n : {std::size_t{1000}, std::size_t{4000}, std::size_t{16000}}) {
    const auto in = make_input<wide, wide_order>(n, dist::random, n);
    flow::algo::runs_creator<wide, wide_order> rc(memory, wide_order(), opt);
    const std::size_t reserve = rc.plan().metadata_reserve;
    for (const auto& r : in) rc.push(r);
    auto runs = rc.result();
    std::size_t spilled = 0;
    for (const auto& r : runs.runs()) spilled += r.firsts.spilled();
    EXPECT_LE(runs.metadata_bytes(), reserve) << n;
    if (n >= 4000) {
      EXPECT_GT(spilled, 0u) << n << " records: their firsts outgrow the reserve";
    } else {
      EXPECT_EQ(spilled, 0u) << "firsts that fit stay in memory";
    }
    const std::uint64_t before = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    flow::algo::runs_merger<wide, wide_order> m(std::move(runs), memory, wide_order(), opt);
    std::vector<wide> out;
    for (; !m.empty(); ++m) out.push_back(*m);
    expect_sorted_permutation<wide, wide_order>(in, out, "n=" + std::to_string(n));
    EXPECT_LE(flow::io::buffer_memory::peak() - before, memory) << n;
    EXPECT_EQ(bm.allocated_bytes(), 0u) << "n=" << n << ": blocks and spilled firsts are freed";
  }
}

TEST(SortSorterMetadata, RunsThatOutgrowTheReserveAreMergedWhileTheyAreFormed) {
  // At 128 KiB with 4 KiB blocks a run holds about 2,500 24-byte records and the reserve
  // describes about a hundred runs: 600,000 records (110x the budget, 240 runs) stopped
  // with "the runs' metadata outgrows its reserve". Now run formation merges its
  // finished runs into one (with its own memory) before the list would outgrow the
  // reserve, and the sort finishes within its budget, the combining one too.
  flow::mng::block_manager bm(flow::test::memory_config());
  for (const unsigned threads : {1u, 2u}) {
    const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096, .threads = threads};
    const std::size_t memory = 128 << 10;
    const std::size_t n = 600000;
    const auto in = make_input<rec<24>, rec24_order>(n, dist::random, 7 + threads);
    const std::uint64_t before = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    flow::algo::runs_creator<rec<24>, rec24_order> rc(memory, rec24_order(), opt);
    const std::size_t reserve = rc.plan().metadata_reserve;
    ASSERT_LT(reserve / flow::plan::run_info_bytes * rc.plan().run_elements, n) << "the runs must outgrow the reserve";
    for (const auto& r : in) rc.push(r);
    auto runs = rc.result();
    EXPECT_LE(runs.metadata_bytes(), reserve);
    EXPECT_LE(flow::io::buffer_memory::peak() - before, memory) << "run formation and its merges";
    flow::io::buffer_memory::reset_peak();
    flow::algo::runs_merger<rec<24>, rec24_order> m(std::move(runs), memory, rec24_order(), opt);
    std::vector<rec<24>> out;
    for (; !m.empty(); ++m) out.push_back(*m);
    expect_sorted_permutation<rec<24>, rec24_order>(in, out, "threads=" + std::to_string(threads));
    EXPECT_LE(flow::io::buffer_memory::peak() - before, memory);
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
}

// A sort at the least budgets its plan accepts, with no idea of its count: run
// formation at the least budget that forms runs, the merge at the least the planner gives
// a merge (flow::plan::memory_planner::minimum), and far more data than either. Run
// formation merges its finished runs when their descriptions outgrow the reserve, within
// its own budget, and the final merge takes whatever runs are left. A generated script's
// sort of 512-byte records in 8 KiB blocks formed 33 runs at its least budget and then
// stopped: "merging 33 sorted runs ... needs a memory budget of at least 88256 bytes; got
// 50624" (run formation's least did not hold a merge of its own runs).
template <std::size_t N, class Order> void sort_at_least_budgets(std::size_t block, unsigned threads) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = block, .threads = threads};
  // The least budgets the planner gives the two halves of a sort of unknown count.
  using flow::plan::memory_node, flow::plan::memory_role;
  const bool keyed = flow::algo::run_sort_traits<rec<N>, Order>::keyed;
  std::vector<memory_node> nodes(2);
  nodes[0] = {.role = memory_role::sort_runs, .phase = 1, .elements = 0, .element_bytes = N, .keyed = keyed, .partner = 1};
  nodes[1] = {.role = memory_role::sort_merge, .phase = 2, .elements = 0, .element_bytes = N, .keyed = keyed, .partner = 0};
  const flow::plan::memory_planner planner(nodes, 64 << 20, block);
  const std::size_t run_memory = planner.minimum(nodes[0]), merge_memory = planner.minimum(nodes[1]);
  const auto rf = flow::plan::run_formation(planner.setup(nodes[0]), run_memory);
  // enough runs that their descriptions outgrow the reserve, and what the merge takes,
  // several times
  const std::size_t runs = 3 * rf.metadata_reserve / flow::plan::run_info_bytes;
  ASSERT_GT(runs, 2 * flow::plan::runs_a_merge_takes(planner.setup(nodes[0]), rf.geometry, merge_memory));
  const std::size_t n = std::min<std::size_t>(runs * rf.run_elements, (4u << 20) / N);
  const std::string what = std::to_string(N) + "-byte records, " + std::to_string(block) + "-byte blocks, " +
                           std::to_string(threads) + " threads, run formation " + std::to_string(run_memory) +
                           " bytes, merge " + std::to_string(merge_memory);
  const auto in = make_input<rec<N>, Order>(n, dist::random, 11 + N);
  const std::uint64_t before = flow::io::buffer_memory::current();
  flow::io::buffer_memory::reset_peak();
  flow::algo::runs_creator<rec<N>, Order> rc(run_memory, Order(), opt.merged_within(merge_memory));
  for (const auto& r : in) rc.push(r);
  auto sorted = rc.result();
  EXPECT_LE(flow::io::buffer_memory::peak() - before, run_memory) << what;
  flow::io::buffer_memory::reset_peak();
  std::vector<rec<N>> out;
  try {
    flow::algo::runs_merger<rec<N>, Order> m(std::move(sorted), merge_memory, Order(), opt);
    for (; !m.empty(); ++m) out.push_back(*m);
  } catch (const std::exception& e) {
    FAIL() << what << ": " << e.what();
  }
  expect_sorted_permutation<rec<N>, Order>(in, out, what);
  EXPECT_LE(flow::io::buffer_memory::peak() - before, merge_memory) << what;
  EXPECT_EQ(bm.allocated_bytes(), 0u) << what;
}

TEST(SortSorterMetadata, AtItsLeastBudgetsASortOfAnySizeFinishes) {
  for (const std::size_t block : {std::size_t{4096}, std::size_t{8192}}) {
    for (const unsigned threads : {1u, 2u}) {
      sort_at_least_budgets<24, rec24_order>(block, threads);
      sort_at_least_budgets<256, be64_prefix_order<256, 16>>(block, threads);
      sort_at_least_budgets<512, be64_prefix_order<512, 16>>(block, threads);
    }
  }
}

TEST(SortSorterMetadata, AMergeThatCannotHoldTheFirstsSpillsThem) {
  // Runs formed with a large budget (their firsts in memory) merged with a small one:
  // the firsts (256 KiB) leave no room for two block buffers, so the merge moves them to
  // disk and reads them back a page at a time, within its budget.
  using wide = rec<256>;
  using wide_order = be64_prefix_order<256, 16>;
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096, .threads = 1};
  const auto in = make_input<wide, wide_order>(16384, dist::random, 3);
  flow::algo::runs_creator<wide, wide_order> rc(8 << 20, wide_order(), opt);
  for (const auto& r : in) rc.push(r);
  auto runs = rc.result();
  ASSERT_GT(runs.run_count(), 1u);
  for (const auto& r : runs.runs()) ASSERT_FALSE(r.firsts.spilled());
  const std::size_t memory = 96 << 10;
  const std::uint64_t before = flow::io::buffer_memory::current();
  flow::io::buffer_memory::reset_peak();
  flow::algo::runs_merger<wide, wide_order> m(std::move(runs), memory, wide_order(), opt);
  std::vector<wide> out;
  for (; !m.empty(); ++m) out.push_back(*m);
  expect_sorted_permutation<wide, wide_order>(in, out, "merged at 96 KiB");
  EXPECT_LE(flow::io::buffer_memory::peak() - before, memory);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(SortSorterBudget, AnInMemoryResultLargerThanItsMergeBudgetIsMergedFromDisk) {
  // A sort planned for few elements has a share of its phase for run formation (as much
  // as the phase leaves) and gets more data than counted: its result stays in memory,
  // holding only the data (not the slots), and a merge given less than that writes it
  // out and merges it from disk, within its budget.
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096, .threads = 1};
  const std::size_t n = 20000; // 160 KB
  const auto in = make_input<std::uint64_t, u64_order>(n, dist::random, 7);
  for (const std::size_t merge_memory : {std::size_t{64} << 10, std::size_t{1} << 20}) {
    flow::algo::runs_creator<std::uint64_t, u64_order> rc(32 << 20, u64_order(), opt);
    for (auto v : in) rc.push(v);
    auto runs = rc.result();
    ASSERT_TRUE(runs.in_memory());
    EXPECT_EQ(runs.memory_bytes(), n * sizeof(std::uint64_t)) << "the kept slot is trimmed to the data";
    const std::uint64_t buffers_before = flow::io::buffer_memory::current();
    flow::io::buffer_memory::reset_peak();
    flow::algo::runs_merger<std::uint64_t, u64_order> m(std::move(runs), merge_memory, u64_order(), opt);
    const bool spilled = bm.allocated_bytes() > 0;
    std::vector<std::uint64_t> out;
    for (; !m.empty(); ++m) out.push_back(*m);
    expect_sorted_permutation<std::uint64_t, u64_order>(in, out, "merge memory " + std::to_string(merge_memory));
    EXPECT_EQ(spilled, merge_memory < n * sizeof(std::uint64_t)) << merge_memory;
    if (spilled) {
      // written out with two blocks beside the data, then merged within the budget
      EXPECT_LE(flow::io::buffer_memory::peak() - std::min(buffers_before, flow::io::buffer_memory::peak()),
                std::max<std::uint64_t>(merge_memory, 2 * 4096)) << merge_memory;
    }
  }
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

struct throwing_order { // comparison only; comparing the value 666 fails
  bool operator()(std::uint64_t a, std::uint64_t b) const {
    if (a == 666 || b == 666) throw std::runtime_error("order failed");
    return a < b;
  }
  static std::uint64_t min_value() { return 0; }
  static std::uint64_t max_value() { return UINT64_MAX; }
};

TEST(SortSorterPhases, BoolsSortThroughRunsOnDisk) {
  // bool is an element type like any other: the merge keeps copies of first elements
  // (a std::vector<bool> there did not compile: it cannot give its elements' addresses).
  struct bool_order {
    bool operator()(bool a, bool b) const { return a < b; }
    static bool min_value() { return false; }
    static bool max_value() { return true; }
  };
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096, .threads = 2};
  std::vector<bool> in;
  for (std::size_t i = 0; i < 200000; ++i) in.push_back(flow::test::mix(i) % 3 == 0);
  flow::algo::runs_creator<bool, bool_order> rc(64 << 10, bool_order(), opt);
  for (bool v : in) rc.push(v);
  auto runs = rc.result();
  ASSERT_FALSE(runs.in_memory());
  flow::algo::runs_merger<bool, bool_order> m(std::move(runs), 64 << 10, bool_order(), opt);
  std::size_t n = 0, trues = 0;
  bool last = false;
  for (; !m.empty(); ++m, ++n) {
    EXPECT_FALSE(last && !*m) << "out of order at " << n;
    last = *m;
    trues += *m;
  }
  EXPECT_EQ(n, in.size());
  EXPECT_EQ(trues, static_cast<std::size_t>(std::count(in.begin(), in.end(), true)));
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(SortSorterErrors, AFullDiskIsReportedAndNothingLeaks) {
  flow::mng::disk_config cfg;
  cfg.disks.push_back(flow::mng::disk_spec::parse(":memory:256KiB"));
  flow::mng::block_manager bm(cfg);
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096};
  bool thrown = false;
  try {
    flow::algo::sorter<std::uint64_t, u64_order> s(128 << 10, u64_order(), opt);
    for (std::uint64_t i = 0; i < 200000; ++i) s.push(mix(i)); // 1.6 MB: more than the disk
    s.finish();
  } catch (const flow::disk_full_error& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("--disk"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(thrown);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(SortSorterErrors, AnOrderThatThrowsStopsTheSortCleanly) {
  flow::mng::block_manager bm(flow::test::memory_config());
  const flow::algo::sort_options opt{.block_manager = &bm, .block_bytes = 4096};
  for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{100000}}) { // in memory, external
    auto sort_all = [&] {
      flow::algo::sorter<std::uint64_t, throwing_order> s(256 << 10, throwing_order(), opt);
      for (std::uint64_t i = 0; i < n; ++i) s.push(i == n / 2 ? 666 : mix(i) % 100000 + 1000);
      s.finish();
      for (; !s.empty(); ++s) {
      }
    };
    EXPECT_THROW(sort_all(), std::runtime_error) << "n=" << n;
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
}

} // namespace
