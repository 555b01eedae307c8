// The sort's I/O model (shared by flowc explain and programs' --stats estimates) against
// hand-computed numbers, and against what the sorter really writes.
#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/sort_model.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

namespace {

TEST(SortModel, RunsFanInAndPasses) {
  flow::plan::sort_model m{2u << 20};
  // (1 GiB - 64 MiB - 4 KiB) / 3 in whole 2 MiB blocks is 318 MiB: 1.6e9 bytes make 5 runs.
  EXPECT_EQ(m.run_bytes(1ull << 30, 16), 318ull << 20);
  auto c = m.estimate(1.6e9, 1ull << 30, 24ull << 20, 16);
  EXPECT_FALSE(c.in_memory);
  EXPECT_EQ(c.runs, 5u);
  EXPECT_EQ(c.passes, 1);
  EXPECT_DOUBLE_EQ(c.runs_write, 1.6e9);
  EXPECT_DOUBLE_EQ(c.merge_read, 1.6e9);
  EXPECT_DOUBLE_EQ(c.merge_write, 0);
  // With 64 MiB: runs of 18 MiB, 85 of them; a merge of 30 blocks takes 15: two passes.
  auto two = m.estimate(1.6e9, 64ull << 20, 64ull << 20, 16);
  EXPECT_EQ(two.runs, 85u);
  EXPECT_EQ(two.passes, 2);
  EXPECT_DOUBLE_EQ(two.merge_read, 3.2e9);
  EXPECT_DOUBLE_EQ(two.merge_write, 1.6e9);
  // Two runs' worth stays in memory when the merge phase can keep it.
  auto small = m.estimate(500e6, 1ull << 30, 600ull << 20, 16);
  EXPECT_TRUE(small.in_memory);
  EXPECT_EQ(small.runs_write, 0);
}

struct u64_order {
  bool operator()(std::uint64_t a, std::uint64_t b) const { return a < b; }
  static std::uint64_t min_value() { return 0; }
  static std::uint64_t max_value() { return std::numeric_limits<std::uint64_t>::max(); }
};

TEST(SortModel, AgreesWithTheSorter) {
  flow::mng::block_manager bm(flow::mng::disk_config{{flow::mng::disk_spec::parse(":memory:")}, false});
  flow::algo::sort_options opt;
  opt.block_manager = &bm;
  opt.block_bytes = 64 << 10;
  const std::size_t memory = 2 << 20;
  const std::uint64_t n = 1'000'000; // 8 MB: several runs
  flow::plan::sort_model m{64 << 10};
  auto expected = m.estimate(8.0 * n, memory, memory, 8);
  flow::io::scoped_stats scope;
  flow::algo::runs_creator<std::uint64_t, u64_order> creator(memory, {}, opt);
  std::mt19937_64 rng(7);
  for (std::uint64_t i = 0; i < n; ++i) creator.push(rng());
  auto runs = creator.result();
  flow::algo::runs_merger<std::uint64_t, u64_order> merger(std::move(runs), memory, {}, opt);
  std::uint64_t count = 0, last = 0;
  for (; !merger.empty(); ++merger, ++count) {
    ASSERT_LE(last, *merger);
    last = *merger;
  }
  EXPECT_EQ(count, n);
  auto measured = scope.elapsed().total();
  // Whole blocks: the last block of each run is padded, so allow 5%.
  EXPECT_NEAR(static_cast<double>(measured.write_bytes), expected.runs_write + expected.merge_write,
              0.05 * expected.runs_write);
  EXPECT_NEAR(static_cast<double>(measured.read_bytes), expected.merge_read, 0.05 * expected.merge_read);
}

} // namespace
