// memory_planner::cost, the one pricing of a plan node (flowc explain prints it, a
// generated program evaluates it at start): each io_rule against values worked out by
// hand from docs/estimates.md's formulas, and adopt(), which prices a calibrated plan
// with the split and the choices of the program's plan; the hash join's share of its
// phase.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "flow/plan/memory_plan.hpp"
#include "flow/plan/reduce_model.hpp"

namespace {

using flow::plan::io_rule;
using flow::plan::memory_node;
using flow::plan::memory_planner;
using flow::plan::memory_role;
using flow::plan::node_cost;
using flow::plan::reduce_hashing;

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;
constexpr std::uint64_t kBlock = 64 * KiB; // 4096 elements of 16 bytes

/// Node 0's cost, alone in a plan with `n`'s budget as given (no assign()).
node_cost alone(memory_node n) {
  std::vector<memory_node> nodes = {n};
  return memory_planner(nodes, 64 * MiB, kBlock).cost(0);
}

void expectNothingMoved(const node_cost& c) {
  EXPECT_EQ(c.read_bytes, 0);
  EXPECT_EQ(c.write_bytes, 0);
  EXPECT_EQ(c.temp_disk_bytes, 0);
  EXPECT_EQ(c.passes, 0u);
}

TEST(PlanCost, NoneMovesNothing) {
  expectNothingMoved(alone({.role = memory_role::join, .elements = 1e6, .element_bytes = 16}));
  expectNothingMoved(alone({.role = memory_role::none, .elements = 1e6, .element_bytes = 16}));
}

TEST(PlanCost, FilesAndStoresMoveTheirElementsOnce) {
  const memory_node base{.role = memory_role::buffer, .elements = 1000, .element_bytes = 16};
  auto with = [&](io_rule io) {
    memory_node n = base;
    n.io = io;
    return alone(n);
  };
  for (io_rule io : {io_rule::reads_file, io_rule::reads_store}) {
    const node_cost c = with(io);
    EXPECT_EQ(c.read_bytes, 16000);
    EXPECT_EQ(c.write_bytes, 0);
    EXPECT_EQ(c.temp_disk_bytes, 0);
  }
  const node_cost file = with(io_rule::writes_file);
  EXPECT_EQ(file.read_bytes, 0);
  EXPECT_EQ(file.write_bytes, 16000);
  EXPECT_EQ(file.temp_disk_bytes, 0); // the user's file, not the temporary disk
  const node_cost store = with(io_rule::writes_store);
  EXPECT_EQ(store.write_bytes, 16000);
  EXPECT_EQ(store.temp_disk_bytes, 16000); // a vector's blocks are on the temporary disk
  // An estimate's fraction of an element is priced as such (a filter's `~ 0.5`).
  memory_node half = base;
  half.io = io_rule::reads_store;
  half.elements = 2.5;
  EXPECT_EQ(alone(half).read_bytes, 40);
}

TEST(PlanCost, BlockAccessesReadABlockPerAccessAndWriteOnePerWrite) {
  const node_cost c = alone({.role = memory_role::cache, .elements = 1e6, .element_bytes = 8,
                             .io = io_rule::block_accesses, .accesses = 100, .writes = 10});
  EXPECT_EQ(c.read_bytes, 100.0 * 65536);
  EXPECT_EQ(c.write_bytes, 10.0 * 65536);
}

/// A sort of 10^6 elements of 16 bytes (keyed: sorted directly) with 16 MiB for run
/// formation and 16 MiB for the merge, in 64 KiB blocks of 4096 elements. By hand
/// (docs/estimates.md, "Sorts"): reserve = 16 MiB/16 + 4 KiB + (16 MiB/(3·64 KiB) + 1)·512
/// = 1,096,704 bytes; R = (16 MiB - reserve)/(3·16) = 326,677 elements, in whole blocks
/// 79·4096 = 323,584; 10^6 > 2R, so 4 runs: three of 79 blocks and one of 29,248 elements
/// (8 blocks), 245 blocks = 16,056,320 bytes. The merge keeps the metadata (10,272 bytes),
/// an output buffer of 16,384 elements, 8 bytes per block and 16 KiB, and divides the
/// rest into 249 buffers of 64 KiB + 576 bytes (two threads); 16 read ahead: fan-in 233,
/// one pass over the 4 runs.
std::vector<memory_node> sortOfAMillion(io_rule runs, io_rule merge, double distinct = 1e6) {
  return {{.role = memory_role::sort_runs, .phase = 1, .elements = 1e6, .element_bytes = 16, .keyed = true,
           .partner = 1, .io = runs, .memory = 16 * MiB},
          {.role = memory_role::sort_merge, .phase = 2, .elements = distinct, .element_bytes = 16, .keyed = true,
           .partner = 0, .io = merge, .memory = 16 * MiB}};
}

TEST(PlanCost, ASortWritesItsRunsAndItsMergeReadsThem) {
  std::vector<memory_node> nodes = sortOfAMillion(io_rule::sort_runs, io_rule::sort_merge);
  const memory_planner p(nodes, 64 * MiB, kBlock);
  const node_cost runs = p.cost(0), merge = p.cost(1);
  EXPECT_EQ(runs.sort.runs, 4u);
  EXPECT_FALSE(runs.sort.in_memory);
  EXPECT_EQ(runs.read_bytes, 0);
  EXPECT_EQ(runs.write_bytes, 16056320);
  EXPECT_EQ(runs.temp_disk_bytes, 16056320);
  EXPECT_EQ(runs.passes, 1u);
  EXPECT_EQ(merge.fan_in, 233u);
  EXPECT_EQ(merge.passes, 1u);
  EXPECT_EQ(merge.read_bytes, 16056320);
  EXPECT_EQ(merge.write_bytes, 0);
  EXPECT_EQ(merge.temp_disk_bytes, 16056320); // the runs; no second level
  EXPECT_EQ(merge.sort.disk_peak, 16056320u);
}

TEST(PlanCost, ASortInMemoryMovesNothing) {
  std::vector<memory_node> nodes = sortOfAMillion(io_rule::sort_runs, io_rule::sort_merge);
  nodes[0].elements = nodes[1].elements = 2 * 323584; // 2R: held by run formation's slots
  const memory_planner p(nodes, 64 * MiB, kBlock);
  for (std::size_t i : {0u, 1u}) {
    const node_cost c = p.cost(i);
    EXPECT_TRUE(c.sort.in_memory);
    expectNothingMoved(c);
    EXPECT_EQ(c.fan_in, 0u);
  }
  nodes[0].elements = nodes[1].elements = 2 * 323584 + 1; // one more writes 3 runs
  EXPECT_EQ(p.cost(0).sort.runs, 3u);
}

TEST(PlanCost, AReduceWithFewKeysHashesAndWritesNothing) {
  // 1000 distinct keys. The hash table of 16 MiB: a reserve of 16 MiB/16 + 4 KiB +
  // 257 blocks·(16 + 2·256) = 1,188,368 bytes, then slots of 17 bytes in whole blocks:
  // 223·4096 = 913,408 slots. The table starts with 4,096 of them (room for the 1000
  // keys) and doubles as keys come, to 524,288 (the next doubling would leave no room
  // at the end of the buffer for the keys it moves there): 3/4 used, 393,216 keys.
  std::vector<memory_node> nodes = sortOfAMillion(io_rule::reduce_runs, io_rule::reduce_merge, 1000);
  nodes[0].hashing = reduce_hashing::if_fits;
  const memory_planner p(nodes, 64 * MiB, kBlock);
  for (std::size_t i : {0u, 1u}) {
    const node_cost c = p.cost(i);
    EXPECT_TRUE(c.hashed);
    EXPECT_EQ(c.hash_capacity, 393216u);
    expectNothingMoved(c);
  }
}

TEST(PlanCost, AReduceThatSortsWritesRunsOfItsDistinctKeys) {
  // Not allowed to hash: the combining sort. Each of the 4 runs of the sort above holds
  // at most the 1000 keys: one block each, 4 blocks written and read once; the merge's
  // metadata is 2,560 bytes, still 249 buffers: fan-in 233.
  std::vector<memory_node> nodes = sortOfAMillion(io_rule::reduce_runs, io_rule::reduce_merge, 1000);
  const memory_planner p(nodes, 64 * MiB, kBlock);
  const node_cost runs = p.cost(0), merge = p.cost(1);
  EXPECT_FALSE(runs.hashed);
  EXPECT_EQ(runs.write_bytes, 4 * 65536);
  EXPECT_EQ(runs.temp_disk_bytes, 4 * 65536);
  EXPECT_EQ(runs.passes, 0u); // a reduce's passes are its merge's
  EXPECT_EQ(merge.read_bytes, 4 * 65536);
  EXPECT_EQ(merge.write_bytes, 0);
  EXPECT_EQ(merge.passes, 1u);
  EXPECT_EQ(merge.fan_in, 233u);
}

TEST(PlanCost, AReduceWithMoreKeysThanTheTableHoldsSorts) {
  // 800,000 keys > 685,056: the hash table would spill, so it sorts; every run of R =
  // 323,584 elements holds R keys, so its runs are the plain sort's.
  std::vector<memory_node> nodes = sortOfAMillion(io_rule::reduce_runs, io_rule::reduce_merge, 800000);
  nodes[0].hashing = reduce_hashing::if_fits;
  const memory_planner p(nodes, 64 * MiB, kBlock);
  EXPECT_FALSE(p.cost(0).hashed);
  EXPECT_EQ(p.cost(0).write_bytes, 16056320);
  EXPECT_EQ(p.cost(1).read_bytes, 16056320);
  // The program's plan chose the hash table (adopt, or keys not known when it was
  // compiled): a table that spills writes sorted runs, priced as the combining sort's.
  nodes[0].hashing = reduce_hashing::yes;
  EXPECT_TRUE(p.cost(0).hashed);
  EXPECT_EQ(p.cost(0).write_bytes, 16056320);
  EXPECT_EQ(p.cost(1).read_bytes, 16056320);
  // One whose keys fit moves nothing.
  std::vector<memory_node> few = sortOfAMillion(io_rule::reduce_runs, io_rule::reduce_merge, 1000);
  few[0].hashing = reduce_hashing::yes;
  const memory_planner q(few, 64 * MiB, kBlock);
  EXPECT_TRUE(q.cost(0).hashed);
  expectNothingMoved(q.cost(0));
  expectNothingMoved(q.cost(1));
}

memory_node queue(double pushes) {
  return {.role = memory_role::queue, .phase = 1, .live_phases = {1}, .elements = pushes, .element_bytes = 16,
          .io = io_rule::queue, .memory = 16 * MiB};
}

TEST(PlanCost, AQueueThatFitsItsInternalArraysMovesNothing) {
  const node_cost c = alone(queue(1000));
  ASSERT_TRUE(c.queue.has_value());
  EXPECT_TRUE(c.queue->feasible);
  EXPECT_EQ(c.queue->expected_max_items, 1000u); // configured for its pushes
  EXPECT_EQ(c.held, 1000);
  expectNothingMoved(c);
}

TEST(PlanCost, AQueueHoldingAllItsPushesIsPricedByItsModel) {
  // 10^8 pushes of 16 bytes (1.5 GiB) through 16 MiB: the queue's own model, half read,
  // half written, all on disk while it lives.
  const node_cost c = alone(queue(1e8));
  ASSERT_TRUE(c.queue.has_value());
  const auto io = c.queue->io(100000000, 100000000);
  EXPECT_GT(io.bytes, 2 * 1600000000ull); // every push is written and read at least once
  EXPECT_EQ(c.read_bytes, static_cast<double>(io.bytes) / 2);
  EXPECT_EQ(c.write_bytes, c.read_bytes);
  EXPECT_EQ(c.temp_disk_bytes, c.write_bytes);
  EXPECT_EQ(c.passes, io.levels);
  EXPECT_GE(c.passes, 1u);
  EXPECT_EQ(c.held, 1e8);
}

TEST(PlanCost, ACalibratedPeakThatFitsMovesNothing) {
  // The same pushes, at most 1/1000 of them at once (a calibration measured it):
  // 10^5 items, within the queue's internal arrays.
  memory_node q = queue(1e8);
  q.peak_fraction = 0.001;
  const node_cost c = alone(q);
  EXPECT_EQ(c.held, 100000);
  expectNothingMoved(c);
  // A peak rounds up to whole items, at least one.
  q.peak_fraction = 1e-12;
  EXPECT_EQ(alone(q).held, 1);
}

TEST(PlanCost, AQueueIsConfiguredForThePushesItsProgramPlans) {
  memory_node q = queue(1e8);
  q.configured_for = 5e6;
  const node_cost c = alone(q);
  ASSERT_TRUE(c.queue.has_value());
  EXPECT_EQ(c.queue->expected_max_items, 5000000u);
  EXPECT_EQ(c.read_bytes, static_cast<double>(c.queue->io_bytes(100000000, 100000000)) / 2);
}

TEST(PlanCost, AdoptTakesTheProgramsSplitAndChoices) {
  // The program's plan: 1000 keys, a reduce that hashes, a queue of 10^6 pushes. The
  // calibrated plan measured 800,000 keys and 10^7 pushes: priced with the program's
  // memory, its hash table (which spills no runs in this model) and its queue's
  // configuration, and its sorts decide in memory or not by their own counts.
  std::vector<memory_node> program = sortOfAMillion(io_rule::reduce_runs, io_rule::reduce_merge, 1000);
  program[0].hashing = reduce_hashing::if_fits;
  program.push_back(queue(1e6));
  program.push_back({.role = memory_role::sort_runs, .phase = 3, .elements = 100, .element_bytes = 16, .keyed = true,
                     .partner = 4, .io = io_rule::sort_runs, .memory = 16 * MiB});
  program.push_back({.role = memory_role::sort_merge, .phase = 4, .elements = 100, .element_bytes = 16, .keyed = true,
                     .partner = 3, .io = io_rule::sort_merge, .memory = 16 * MiB});
  std::vector<memory_node> calibrated = program;
  calibrated[1].elements = 800000;
  calibrated[2].elements = 1e7;
  calibrated[3].elements = calibrated[4].elements = 1e6;
  for (memory_node& n : calibrated) n.memory = 0;
  memory_planner p(calibrated, 64 * MiB, kBlock);
  p.adopt(memory_planner(program, 64 * MiB, kBlock));
  for (std::size_t i = 0; i < program.size(); ++i) EXPECT_EQ(calibrated[i].memory, program[i].memory);
  EXPECT_EQ(calibrated[0].hashing, reduce_hashing::yes);
  EXPECT_TRUE(p.cost(0).hashed);
  EXPECT_EQ(calibrated[2].configured_for, 1e6);
  EXPECT_EQ(p.cost(2).queue->expected_max_items, 1000000u);
  EXPECT_FALSE(calibrated[3].in_memory); // 10^6 elements: 4 runs, as above
  EXPECT_EQ(calibrated[3].runs, 4u);
  EXPECT_EQ(calibrated[4].runs, 4u);
  // A program whose reduce sorts: the calibrated plan sorts too, though its keys fit.
  program[1].elements = 800000;
  calibrated[1].elements = 1000;
  calibrated[0].hashing = reduce_hashing::if_fits;
  p.adopt(memory_planner(program, 64 * MiB, kBlock));
  EXPECT_EQ(calibrated[0].hashing, reduce_hashing::no);
  EXPECT_EQ(p.cost(0).write_bytes, 4 * 65536);
}

/// A hash join of 1,000,000 left elements of 16 bytes with `right` right elements of 8,
/// read by a reduce of `keys` distinct keys: nodes 0 and 1 read, 2 joins, 3 and 4 reduce.
std::vector<memory_node> hashJoinIntoAReduce(double right, double keys) {
  return {{.role = memory_role::buffer, .phase = 1, .elements = 1e6, .element_bytes = 16, .io = io_rule::reads_file},
          {.role = memory_role::buffer, .phase = 1, .elements = right, .element_bytes = 8, .io = io_rule::reads_file},
          {.role = memory_role::hash_join, .phase = 1, .elements = 1e6, .element_bytes = 16, .partner = 1, .probe = 0,
           .probe_element_bytes = 16, .build_element_bytes = 8, .io = io_rule::hash_join},
          {.role = memory_role::sort_runs, .phase = 1, .elements = 1e6, .element_bytes = 16, .keyed = true,
           .partner = 4, .io = io_rule::reduce_runs, .hashing = reduce_hashing::if_fits},
          {.role = memory_role::sort_merge, .phase = 2, .elements = keys, .element_bytes = 16, .keyed = true,
           .partner = 3, .io = io_rule::reduce_merge}};
}

TEST(PlanCost, AHashJoinWhoseTableFitsMovesNothingElseItTakesPasses) {
  // 100,000 right elements: a table of 100,000·8 + (32,768 + 1)·4 bytes, four blocks and
  // the batches of 2 threads, all asked for before run formation.
  std::vector<memory_node> nodes = hashJoinIntoAReduce(1e5, 1000);
  memory_planner p(nodes, 64 * MiB, kBlock);
  ASSERT_FALSE(p.assign());
  const std::uint64_t want = flow::plan::hash_join_memory_for(100000, 8, kBlock) + p.hash_join_probe(nodes[2]);
  EXPECT_GE(nodes[2].memory, want);
  expectNothingMoved(p.cost(2));
  // At a budget too small for its table: passes = ceil(N_r / C), the rest of the right
  // input written and read once, the left input written once and read by each pass after
  // the first (blocks of 64 KiB).
  nodes[2].memory = 1 * MiB + p.hash_join_probe(nodes[2]);
  const std::uint64_t c = flow::plan::hash_join_capacity(8, 1 * MiB, kBlock);
  EXPECT_EQ(c, (1 * MiB - 4 * kBlock - 8) / 20 * 2);
  const node_cost cost = p.cost(2);
  const std::uint64_t passes = (100000 + c - 1) / c;
  const double rest = std::ceil((100000.0 - static_cast<double>(c)) / (kBlock / 8)) * kBlock;
  const double left = std::ceil(1e6 / (kBlock / 16)) * kBlock;
  EXPECT_EQ(cost.passes, passes);
  EXPECT_EQ(cost.write_bytes, rest + left);
  EXPECT_EQ(cost.read_bytes, rest + static_cast<double>(passes - 1) * left);
  EXPECT_EQ(cost.temp_disk_bytes, cost.write_bytes);
}

TEST(PlanCost, AReduceBesideAHashJoinGetsItsTablesLeastBudget) {
  // At the least budget of the phase the hash join takes what run formation leaves; a
  // reduce that may hash still gets its table's least budget (it got the sort's minimum,
  // below the table's, and the program stopped: "reduce (hash table) needs at least").
  std::vector<memory_node> nodes = hashJoinIntoAReduce(1e6, 1000);
  const std::uint64_t least = flow::plan::least_budget(nodes, 1, kBlock);
  ASSERT_GT(least, 0u);
  memory_planner p(nodes, least, kBlock);
  ASSERT_FALSE(p.assign());
  const flow::plan::sort_setup s = p.setup(nodes[3]);
  EXPECT_GE(nodes[3].memory,
            flow::plan::smallest_budget([&](std::uint64_t m) { return flow::plan::hash_reduce(s, m, 1000).slots > 0; }));
}

TEST(PlanCost, SortsOfUnknownCountBesideALargeOneStayWithinTheBudget) {
  // Two sorts with almost no volume (unknown counts) and one of a million elements form
  // runs in one phase: the small ones take their minimums and the large one what is left
  // (it took its share of everything, the others' minimums came on top, and the plan of a
  // generated script's phase was 555 KiB of a 427 KiB budget).
  std::vector<memory_node> nodes;
  for (double elements : {1.0, 1e6, 1.0}) {
    const int runs = static_cast<int>(nodes.size());
    nodes.push_back({.role = memory_role::sort_runs, .phase = 1, .elements = elements, .element_bytes = 16,
                     .keyed = true, .partner = runs + 1, .io = io_rule::sort_runs});
    nodes.push_back({.role = memory_role::sort_merge, .phase = 2, .elements = elements, .element_bytes = 16,
                     .keyed = true, .partner = runs, .io = io_rule::sort_merge});
  }
  for (std::uint64_t budget : {2 * MiB, 4 * MiB, 8 * MiB}) {
    SCOPED_TRACE(budget);
    memory_planner p(nodes, budget, kBlock);
    ASSERT_FALSE(p.assign());
    std::uint64_t phase1 = 0;
    for (const memory_node& n : nodes)
      if (n.phase == 1) phase1 += n.memory;
    EXPECT_LE(phase1, budget);
    EXPECT_EQ(nodes[0].memory, p.minimum(nodes[0]));
    EXPECT_EQ(nodes[4].memory, p.minimum(nodes[4]));
    EXPECT_GT(nodes[2].memory, budget / 2); // the large sort gets the rest
  }
}

TEST(PlanCost, EveryRuleHasItsCppName) {
  // Generated programs write their memory plan's rules by these names.
  EXPECT_STREQ(flow::plan::name(io_rule::none), "none");
  EXPECT_STREQ(flow::plan::name(io_rule::reads_file), "reads_file");
  EXPECT_STREQ(flow::plan::name(io_rule::reads_store), "reads_store");
  EXPECT_STREQ(flow::plan::name(io_rule::writes_file), "writes_file");
  EXPECT_STREQ(flow::plan::name(io_rule::writes_store), "writes_store");
  EXPECT_STREQ(flow::plan::name(io_rule::sort_runs), "sort_runs");
  EXPECT_STREQ(flow::plan::name(io_rule::sort_merge), "sort_merge");
  EXPECT_STREQ(flow::plan::name(io_rule::reduce_runs), "reduce_runs");
  EXPECT_STREQ(flow::plan::name(io_rule::reduce_merge), "reduce_merge");
  EXPECT_STREQ(flow::plan::name(io_rule::queue), "queue");
  EXPECT_STREQ(flow::plan::name(io_rule::block_accesses), "block_accesses");
  EXPECT_STREQ(flow::plan::name(io_rule::hash_join), "hash_join");
  EXPECT_STREQ(flow::plan::name(memory_role::hash_join), "hash_join");
  EXPECT_STREQ(flow::plan::name(reduce_hashing::no), "no");
  EXPECT_STREQ(flow::plan::name(reduce_hashing::if_fits), "if_fits");
  EXPECT_STREQ(flow::plan::name(reduce_hashing::yes), "yes");
}

} // namespace
