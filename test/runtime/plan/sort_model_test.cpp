// The sort's shared model (flow/plan/sort_model.hpp: what flowc explain, the programs'
// --stats estimates and the sorter itself use) against hand-computed numbers, and against
// what a runs_creator and a runs_merger in separate phases really read and write: exactly
// the model's bytes, with one and with several merge passes.
#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/plan/sort_model.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <queue>
#include <limits>
#include <random>

namespace {

using flow::plan::sort_setup;

TEST(SortModel, RunFormationAndFanInByHand) {
  const sort_setup edges{.element_bytes = 16, .keyed = true, .block_bytes = 2 << 20};
  // 1 GiB: a reserve of 64 MiB + 4 KiB and the metadata of the run being written (a
  // 16-byte first element and 512 bytes of write requests per block), three slots of 16
  // bytes per element in whole 2 MiB blocks: 159 blocks = 318 MiB per run.
  const auto rf = flow::plan::run_formation(edges, 1ull << 30);
  EXPECT_EQ(rf.slots, 3u);
  EXPECT_EQ(rf.metadata_reserve, (64ull << 20) + 4096 + 159 * (16 + 512));
  EXPECT_EQ(rf.slot_bytes, 318ull << 20);
  EXPECT_EQ(rf.in_memory_elements(), 2 * rf.run_elements);
  // 100-byte records with a key: two slots, key pairs and half an element of write ring.
  const sort_setup records{.element_bytes = 100, .keyed = true, .block_bytes = 0};
  const auto r100 = flow::plan::run_formation(records, 256ull << 20);
  EXPECT_EQ(r100.slots, 2u);
  EXPECT_EQ(r100.geometry.bytes, 20 * 102400u); // lcm(100, 4096) = 102400, up to 2 MiB
  EXPECT_EQ(r100.in_memory_elements(), r100.run_elements);
  EXPECT_GT(r100.ring_blocks, 4u);
  // Without a radix key the same records are sorted directly: three slots.
  EXPECT_EQ(flow::plan::run_formation({.element_bytes = 100, .keyed = false}, 256ull << 20).slots, 3u);
  // A merge of 24 MiB with 2 MiB blocks and little metadata: 10 buffers after the output
  // buffer (1/16 of the budget, at least a block) and fixed parts; one reads ahead, so it
  // takes 9 runs.
  const auto g = flow::plan::sort_block(edges, 24 << 20);
  const auto m = flow::plan::merge(edges, g, 24 << 20, 4096);
  EXPECT_EQ(m.output_elements, g.elements);
  EXPECT_EQ(m.buffers, 10u);
  EXPECT_EQ(m.fan_in, 9u);
  EXPECT_EQ(m.intermediate_fan_in, 7u);
  // The smallest budget that takes 9 runs at once gives fan-in 9, one byte less does not.
  const std::uint64_t need = flow::plan::merge_memory_for(edges, g, 9, 100);
  const std::uint64_t meta = flow::plan::merge_metadata_bytes(edges, 9, 100);
  EXPECT_GE(flow::plan::merge(edges, g, need, meta).fan_in, 9u);
  EXPECT_LT(flow::plan::merge(edges, g, need - 1, meta).fan_in, 9u);
}

// Run formation never plans more than its budget, and records that are a large part of a
// block (a record of four 256-byte strs in 4 KiB blocks: a run's first elements are a
// quarter of its bytes) still get runs at a modest budget (they once needed 14 TiB: the
// run being written had to fit in 1/16 of the budget beside the finished runs).
TEST(SortModel, RunFormationFitsItsBudgetForAnyRecordAndBlock) {
  for (const std::uint64_t bytes : {4ull, 16ull, 100ull, 258ull, 1024ull, 2048ull}) {
    for (const std::uint64_t block : {4096ull, 65536ull, 0ull}) {
      for (const bool keyed : {false, true}) {
        const sort_setup s{.element_bytes = bytes, .keyed = keyed, .block_bytes = block};
        for (const std::uint64_t memory : {64ull << 10, 1ull << 20, 16ull << 20, 1ull << 30}) {
          const auto rf = flow::plan::run_formation(s, memory);
          if (rf.run_elements == 0) continue; // too small for a run: the planner asks for more
          const std::uint64_t planned = rf.fixed_bytes + rf.run_elements * rf.bytes_per_element;
          EXPECT_LE(planned, memory) << bytes << "-byte records, block " << block << ", memory " << memory;
          // The run being written fits beside the finished runs' share.
          EXPECT_GE(rf.metadata_reserve,
                    memory / 16 + rf.run_elements / rf.geometry.elements * (bytes + 2 * flow::plan::run_write_overhead));
        }
        EXPECT_LT(flow::plan::run_memory_for(s, 33), 16ull << 20) << bytes << "-byte records, block " << block;
      }
    }
  }
}

TEST(SortModel, InMemoryOnePassAndTwoPasses) {
  const sort_setup edges{.element_bytes = 16, .keyed = true, .block_bytes = 2 << 20};
  const auto rf = flow::plan::run_formation(edges, 1ull << 30);
  auto in_memory = flow::plan::sort_estimate(edges, rf.in_memory_elements(), 1ull << 30, 1ull << 30);
  EXPECT_TRUE(in_memory.in_memory);
  EXPECT_EQ(in_memory.io_bytes(), 0u);
  EXPECT_FALSE(flow::plan::sort_estimate(edges, rf.in_memory_elements() + 1, 1ull << 30, 1ull << 30).in_memory);
  // 1e8 edges (1.6 GB) in runs of 318 MiB: 5 runs, one pass, written and read once.
  auto one = flow::plan::sort_estimate(edges, 100'000'000, 1ull << 30, 24ull << 20);
  EXPECT_EQ(one.runs, 5u);
  EXPECT_EQ(one.passes, 1u);
  // full runs are whole blocks: only the last run's last block is padded
  const std::uint64_t blocks = (100'000'000ull * 16 + (2 << 20) - 1) / (2 << 20);
  EXPECT_EQ(one.runs_write, blocks * (2 << 20));
  EXPECT_EQ(one.merge_read, one.runs_write);
  EXPECT_EQ(one.merge_write, 0u);
  // 64 MiB: runs of 18 MiB, 85 of them; a 16 MiB merge takes 5: the smallest runs are
  // merged first, as few as leave the final merge its fan-in, so less than two full passes.
  auto two = flow::plan::sort_estimate(edges, 100'000'000, 64ull << 20, 16ull << 20);
  EXPECT_EQ(two.runs, 85u);
  EXPECT_GE(two.passes, 3u);
  EXPECT_GT(two.merge_write, 0u);
  EXPECT_EQ(two.merge_read, two.runs_write + two.merge_write);
}

struct u64_order {
  bool operator()(std::uint64_t a, std::uint64_t b) const { return a < b; }
  static std::uint64_t min_value() { return 0; }
  static std::uint64_t max_value() { return std::numeric_limits<std::uint64_t>::max(); }
  using key_type = std::uint64_t;
  static key_type key(std::uint64_t v) { return v; }
};

// Run formation and merging as separate objects with their own budgets (as generated
// programs use them): the measured bytes are the model's, exactly.
void expect_model_matches(std::uint64_t n, std::size_t run_memory, std::size_t merge_memory, unsigned min_passes) {
  flow::mng::block_manager bm(flow::mng::disk_config{{flow::mng::disk_spec::parse(":memory:")}, false});
  flow::algo::sort_options opt;
  opt.block_manager = &bm;
  opt.block_bytes = 64 << 10;
  opt.threads = 2;
  const auto expected =
      flow::plan::sort_estimate(flow::algo::sort_setup_of<std::uint64_t, u64_order>(opt), n, run_memory, merge_memory);
  flow::io::scoped_stats scope;
  flow::algo::runs_creator<std::uint64_t, u64_order> creator(run_memory, {}, opt);
  std::mt19937_64 rng(n);
  for (std::uint64_t i = 0; i < n; ++i) creator.push(rng());
  auto runs = creator.result();
  EXPECT_EQ(runs.run_count(), expected.runs);
  flow::algo::runs_merger<std::uint64_t, u64_order> merger(std::move(runs), merge_memory, {}, opt);
  std::uint64_t count = 0, last = 0;
  for (; !merger.empty(); ++merger, ++count) {
    ASSERT_LE(last, *merger);
    last = *merger;
  }
  EXPECT_EQ(count, n);
  EXPECT_EQ(merger.merge_passes(), expected.passes) << "n=" << n;
  EXPECT_GE(expected.passes, min_passes);
  const auto measured = scope.elapsed().total();
  EXPECT_EQ(measured.write_bytes, expected.runs_write + expected.merge_write) << "n=" << n;
  EXPECT_EQ(measured.read_bytes, expected.merge_read) << "n=" << n;
  // The disk the sort needed at once: its runs, plus an intermediate merge's output
  // while its inputs are still allocated. A lower bound: with several intermediate
  // merges, free space in pieces too small for a whole merged run makes the file grow.
  const std::uint64_t peak = bm.disk_at(0).peak_extent();
  if (expected.merge_write == 0) {
    EXPECT_EQ(expected.disk_peak, expected.runs_write);
    EXPECT_EQ(peak, expected.disk_peak) << "n=" << n;
  } else {
    EXPECT_GT(expected.disk_peak, expected.runs_write);
    EXPECT_LE(expected.disk_peak, peak) << "n=" << n;
  }
}

TEST(SortModel, AgreesWithRunsCreatorAndMerger) {
  expect_model_matches(1'000'000, 2 << 20, 2 << 20, 1);      // 8 MB in runs of ~0.6 MB: one pass
  expect_model_matches(1'000'003, 2 << 20, 2 << 20, 1);      // a partial last block
  expect_model_matches(1'000'000, 1 << 20, 600 << 10, 2);    // a small merge: more passes
  expect_model_matches(3'000'000, 1 << 20, 600 << 10, 3);
}

} // namespace

namespace huge {

// The intermediate passes as they were computed before they were grouped: run by run in a
// priority queue (the reference; far too slow for 10^15 elements and more).
struct passes_result {
  std::uint64_t merge_read = 0, merge_write = 0;
  unsigned passes = 0;
};
passes_result passes_run_by_run(std::uint64_t disk_runs, std::uint64_t R, std::uint64_t last, std::uint64_t k,
                                std::uint64_t kk, const flow::plan::sort_geometry& g) {
  passes_result r;
  auto blocks_of = [&](std::uint64_t e) { return (e + g.elements - 1) / g.elements; };
  using run = std::pair<std::uint64_t, unsigned>;
  std::priority_queue<run, std::vector<run>, std::greater<run>> pending;
  for (std::uint64_t i = 0; i + 1 < disk_runs; ++i) pending.push({R, 0});
  if (disk_runs) pending.push({last, 0});
  unsigned deepest = 0;
  while (pending.size() > k) {
    const std::uint64_t take = std::min<std::uint64_t>(kk, pending.size() - k + 1);
    std::uint64_t elements = 0;
    unsigned level = 0;
    for (std::uint64_t i = 0; i < take; ++i) {
      r.merge_read += blocks_of(pending.top().first) * g.bytes;
      elements += pending.top().first;
      level = std::max(level, pending.top().second);
      pending.pop();
    }
    r.merge_write += blocks_of(elements) * g.bytes;
    pending.push({elements, level + 1});
    deepest = std::max(deepest, level + 1);
  }
  for (; !pending.empty(); pending.pop()) r.merge_read += blocks_of(pending.top().first) * g.bytes;
  r.passes = deepest + 1;
  return r;
}

} // namespace huge

// Merging groups of equal runs at once gives exactly what merging them run by run gives.
TEST(SortModel, GroupedPassesEqualRunByRun) {
  std::mt19937_64 rng(7);
  const std::uint64_t sizes[] = {8, 16, 24, 100};
  for (int i = 0; i < 3000; ++i) {
    const sort_setup s{.element_bytes = sizes[rng() % 4], .keyed = rng() % 2 == 0, .block_bytes = 4096u << (rng() % 5)};
    const std::uint64_t run_memory = (256ull << 10) + rng() % (32ull << 20);
    const std::uint64_t merge_memory = (64ull << 10) + rng() % (8ull << 20);
    const auto rf = flow::plan::run_formation(s, run_memory);
    if (rf.run_elements == 0) continue;
    const std::uint64_t n = rf.in_memory_elements() + 1 + rng() % (rf.run_elements * (1 + rng() % 3000));
    const bool keep_last = rng() % 2 == 0;
    const auto c = flow::plan::sort_estimate(s, n, run_memory, merge_memory, keep_last);
    const std::uint64_t R = rf.run_elements, last = n - (c.runs - 1) * R;
    const std::uint64_t disk_runs = c.runs - (c.last_run_in_memory ? 1 : 0);
    const std::uint64_t k = std::max<std::uint64_t>(c.fan_in, 1);
    const std::uint64_t kk = std::max<std::uint64_t>(c.fan_in > 2 ? c.fan_in - 2 : 0, 2);
    const auto ref = huge::passes_run_by_run(disk_runs, R, c.last_run_in_memory ? R : last, k, kk, rf.geometry);
    ASSERT_EQ(c.merge_read, ref.merge_read) << "n=" << n << " i=" << i;
    ASSERT_EQ(c.merge_write, ref.merge_write) << "n=" << n << " i=" << i;
    ASSERT_EQ(c.passes, ref.passes) << "n=" << n << " i=" << i;
  }
}

// Up to 2^63 elements a sort plans at once, whatever the budget; bytes past 2^64 - 1
// saturate instead of wrapping.
TEST(SortModel, HugeCountsPlanInClosedForm) {
  const sort_setup s{.element_bytes = 64, .keyed = true, .block_bytes = 0};
  const auto start = std::chrono::steady_clock::now();
  for (const std::uint64_t n : {std::uint64_t{1'000'000'000'000'000}, std::uint64_t{1'000'000'000'000'000'000},
                                flow::plan::max_elements}) {
    for (const std::uint64_t memory : {std::uint64_t{4} << 20, std::uint64_t{1} << 30}) {
      const auto c = flow::plan::sort_estimate(s, n, memory, memory, true);
      EXPECT_TRUE(c.feasible);
      EXPECT_GE(c.passes, 2u);
      EXPECT_GE(c.merge_read, c.runs_write); // saturated or not, never wrapped
      EXPECT_GE(c.io_bytes(), c.merge_read);
    }
    EXPECT_EQ(flow::plan::run_memory_for(s, n), flow::plan::saturated); // no budget holds it
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(flow::plan::sort_estimate(s, flow::plan::max_elements, 1 << 30, 1 << 30).runs_write,
            flow::plan::saturated);
}

// The memory split, as programs run it at start: 10^18 elements are refused at once by a
// budget too small for their runs' metadata, more than 2^63 is an error naming the phase.
TEST(MemoryPlan, HugeCountsPlanOrAreRejected) {
  using flow::plan::memory_node;
  using flow::plan::memory_role;
  auto plan = [](double elements) {
    std::vector<memory_node> nodes = {
        {.role = memory_role::sort_runs, .phase = 1, .live_phases = {}, .elements = elements, .element_bytes = 16, .keyed = true,
         .partner = 1, .memory = 0, .in_memory = false, .runs = 0},
        {.role = memory_role::sort_merge, .phase = 2, .live_phases = {}, .elements = elements, .element_bytes = 16, .keyed = true,
         .partner = 0, .memory = 0, .in_memory = false, .runs = 0},
        {.role = memory_role::queue, .phase = 2, .live_phases = {2}, .elements = elements, .element_bytes = 16,
         .keyed = false, .partner = -1, .memory = 0, .in_memory = false, .runs = 0},
    };
    // 1 GiB cannot hold the first element of every block of their runs: refused at once.
    flow::plan::memory_planner planner(nodes, 1ull << 30, 1ull << 20);
    const auto shortfall = planner.assign();
    EXPECT_TRUE(shortfall.has_value());
    EXPECT_GT(shortfall ? shortfall->needed : 0, 1ull << 30);
    return shortfall;
  };
  const auto start = std::chrono::steady_clock::now();
  plan(1e18);
  plan(9223372036854775808.0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  try {
    plan(1e19);
    FAIL() << "no error for 1e19 elements";
  } catch (const flow::plan::too_many_elements& e) {
    EXPECT_EQ(e.phase(), 1);
    EXPECT_STREQ(e.what(), "phase 1 would handle 1e+19 elements, more than 2^63");
  }
}
