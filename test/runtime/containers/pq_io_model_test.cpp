// The priority queue's I/O model (pq_config::io, containers/pq/plan.hpp) against the
// bytes the real queue reads and writes on an O_DIRECT file (the runtime's I/O counters):
// budgets and sizes where it stays in memory and where it passes one, two and three
// external levels; random, ascending and descending keys pushed all before the first pop
// (the model must be within 5%: it is exact but for the padding of merged arrays), and
// interleaved orders (two random pushes per pop, MIS's time-forward queue on a random
// graph, time-forward keys at two pushes per pop), which it must never underestimate,
// priced with their measured peak as a calibration does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "flow/containers/priority_queue.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "test_support.hpp"

namespace {

using flow::containers::plan_priority_queue;
using flow::containers::pq_config;
using flow::containers::priority_queue;
using u64 = std::uint64_t;

constexpr std::size_t block = 4096;

/// What one run of the queue did: pushes, most items at once, bytes read + written.
struct measured {
  u64 pushes = 0, peak = 0, bytes = 0, external_merges = 0;
};

enum class order { random, ascending, descending, two_random_per_pop, mis, time_forward };

/// Runs the queue (planned for `n` items within `budget`) on an O_DIRECT file.
/// Push-all orders push n keys, then pop them all; the interleaved ones push about n.
measured run(u64 budget, u64 n, order o, u64 seed) {
  flow::test::scratch_dir dir;
  flow::mng::block_manager bm(flow::test::direct_config(dir.path()));
  const pq_config cfg = plan_priority_queue(budget, n, 8, block);
  measured m;
  std::mt19937_64 rng(seed);
  flow::io::scoped_stats phase;
  {
    priority_queue<u64> q(cfg, bm);
    auto push = [&](u64 v) {
      q.push(v);
      ++m.pushes;
      m.peak = std::max<u64>(m.peak, q.size());
    };
    u64 prev = 0;
    auto pop = [&] {
      const u64 v = q.top();
      EXPECT_LE(prev, v) << "out of order";
      prev = v;
      q.pop();
    };
    switch (o) {
    case order::random:
    case order::ascending:
    case order::descending:
      for (u64 i = 0; i < n; ++i) push(o == order::random ? rng() : o == order::ascending ? i : n - i);
      break;
    case order::two_random_per_pop: // keys at random, popped as they come
      for (u64 i = 0; i < n / 2; ++i) {
        push(rng());
        push(rng());
        q.pop(); // keys below the last pop come later: no order to check here
      }
      break;
    case order::mis: { // examples/mis.flow's queue: n edges over n/4 nodes, sorted by source
      const u64 nodes = n / 4;
      std::vector<std::pair<u64, u64>> edges(n);
      for (auto& e : edges) e = {rng() % nodes, rng() % nodes};
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      for (const auto& [src, dst] : edges) {
        if (src == dst) continue;
        while (!q.empty() && q.top() < src) q.pop(); // a dst below src comes after larger pops
        if (q.empty() || q.top() != src) push(dst);
      }
      break;
    }
    case order::time_forward: // each push later than the last pop, two per pop
      for (u64 i = 0; i < n / 2; ++i) {
        push(prev + rng() % (4 * n));
        push(prev + rng() % (4 * n));
        pop();
      }
      break;
    }
    prev = 0;
    while (!q.empty()) pop();
    m.external_merges = q.stats().external_merges;
  }
  const auto t = phase.elapsed().total();
  m.bytes = t.read_bytes + t.write_bytes;
  EXPECT_EQ(t.read_bytes, t.write_bytes) << "every block written is read once";
  return m;
}

struct push_all_case {
  u64 budget, n;
  unsigned levels; // external levels the model must find
};

// 250000 bytes: external arity 6, flushes of about 19500 items, a heap of 976 items
// (not a whole number of 4 KiB chunks: merged internal arrays save partial chunks);
// 1 MiB: arity 14, flushes of about 110000 items.
const push_all_case push_all_cases[] = {
    {250000, 15000, 0}, {250000, 60000, 1}, {250000, 200000, 2}, {250000, 800000, 3},
    {1u << 20, 100000, 0}, {1u << 20, 400000, 1}, {1u << 20, 1700000, 2},
};

TEST(PqIoModel, ExactForPushesThenPops) {
  for (const auto& c : push_all_cases) {
    const pq_config cfg = plan_priority_queue(c.budget, c.n, 8, block);
    ASSERT_TRUE(cfg.feasible);
    const auto model = cfg.io(c.n, c.n);
    EXPECT_EQ(model.levels, c.levels) << "budget " << c.budget << ", " << c.n << " items";
    EXPECT_EQ(cfg.external_levels, c.levels);
    EXPECT_EQ(cfg.io_bytes(c.n, 0), model.bytes) << "peak 0: all pushes at once";
    for (order o : {order::random, order::ascending, order::descending}) {
      const measured m = run(c.budget, c.n, o, c.n);
      const double err = (static_cast<double>(model.bytes) - static_cast<double>(m.bytes)) /
                         std::max(1.0, static_cast<double>(m.bytes));
      EXPECT_LE(std::abs(err), 0.05) << "budget " << c.budget << ", " << c.n << " items, order "
                                     << static_cast<int>(o) << ": model " << model.bytes << ", measured "
                                     << m.bytes;
      EXPECT_GE(model.bytes, m.bytes) << "merged arrays' padding is counted at most";
      if (c.levels == 0) {
        EXPECT_EQ(m.bytes, 0u);
      }
      if (c.levels >= 2) {
        EXPECT_GT(m.external_merges, 0u);
      }
    }
  }
}

TEST(PqIoModel, NeverBelowInterleavedOrders) {
  for (order o : {order::two_random_per_pop, order::mis, order::time_forward}) {
    for (u64 budget : {u64{250000}, u64{1} << 20}) {
      const u64 n = budget < (1u << 20) ? 300000 : 1200000;
      const measured m = run(budget, n, o, 7);
      const pq_config cfg = plan_priority_queue(budget, m.pushes, 8, block);
      const std::string what = "order " + std::to_string(static_cast<int>(o)) + ", budget " +
                               std::to_string(budget) + ", " + std::to_string(m.pushes) + " pushes, peak " +
                               std::to_string(m.peak) + ", measured " + std::to_string(m.bytes);
      EXPECT_GT(m.peak, cfg.flush_items) << what << ": the test must reach external memory";
      EXPECT_LT(m.peak, m.pushes) << what;
      EXPECT_GE(cfg.io_bytes(m.pushes, m.pushes), m.bytes) << what << " (static)";
      EXPECT_GE(cfg.io_bytes(m.pushes, m.peak), m.bytes) << what << " (calibrated)";
    }
  }
}

TEST(PqIoModel, PeakThatFitsWritesNothing) {
  // A top-k queue: many pushes, never more than the internal arrays hold.
  const pq_config cfg = plan_priority_queue(250000, 100000, 8, block);
  EXPECT_EQ(cfg.io_bytes(100000, cfg.flush_items), 0u);
  EXPECT_GT(cfg.io_bytes(100000, cfg.flush_items + 1), 0u);
  EXPECT_GT(cfg.io_bytes(100000, 100000), 0u);
}

// The model sums over digit sums of the flush counter, never over flushes: constant
// evaluation (a few million steps at most) of 10^18 items at a terabyte's budget.
static_assert(plan_priority_queue(1ull << 40, 1000000000000000000ull, 8, 4u << 20).external_levels == 4);
static_assert(plan_priority_queue(64ull << 20, 1000000000000000000ull, 8, 1u << 20)
                  .io_bytes(1000000000000000000ull, 0) == flow::plan::saturated);

} // namespace
