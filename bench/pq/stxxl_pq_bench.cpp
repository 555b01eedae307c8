// STXXL 1.4.1's priority queue (PRIORITY_QUEUE_GENERATOR) on the benchmarks of
// flow_pq_bench.cpp, with the same budget split as the bulk-parallel paper's runs of
// STXXL's queue: half the budget for the queue's internal structure, a quarter each
// for the prefetch pool and the write pool. Prints one "RESULT" line per benchmark.
//
//   stxxl_pq_bench BENCH LOG2_N     (BENCH: push-rand-pop | push-asc-pop | bulk-rewrite)
// The disk comes from $STXXLCFG (bench/run writes one with syscall I/O and O_DIRECT).
#include <stxxl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pq_bench.hpp"

using bench::now;
using u64 = std::uint64_t;

struct greater_u64 { // STXXL's queue pops the *largest* under its comparator
  bool operator()(const u64& a, const u64& b) const { return a > b; }
  u64 min_value() const { return ~u64(0); } // the smallest under this order
};

static constexpr stxxl::internal_size_type budget = 256ull << 20;
static constexpr stxxl::internal_size_type queue_mem = budget / 2;
static constexpr stxxl::internal_size_type pool_mem = budget / 4;
// MaxItems in units of 1024: 2^28 items covers every benchmark (2^27 items, rewrite).
typedef stxxl::PRIORITY_QUEUE_GENERATOR<u64, greater_u64, queue_mem, (1ull << 28) / 1024>::result
    pq_type;

int main(int argc, char** argv) {
  if (!bench::has_args(argc, argv, 2, "push-rand-pop|push-asc-pop|bulk-rewrite LOG2_N")) return 2;
  const std::string bench = argv[1];
  const u64 n = bench::pow2_arg(argv[2]);
  stxxl::stats* st = stxxl::stats::get_instance();
  pq_type pq(pool_mem, pool_mem);
  bool ok = true;
  u64 checksum = 0;
  double t0 = 0, t1 = 0;
  stxxl::stats_data s0;
  if (bench == "push-rand-pop" || bench == "push-asc-pop") {
    s0 = stxxl::stats_data(*st);
    t0 = now();
    ok = bench::push_pop(pq, n, bench == "push-rand-pop", &checksum);
    t1 = now();
  } else if (bench == "bulk-rewrite") {
    for (u64 i = 0; i < n; ++i) pq.push(i); // ascending fill: not measured
    s0 = stxxl::stats_data(*st);
    t0 = now();
    u64 prev = 0;
    std::vector<u64> work;
    bench::for_each_bulk(n, [&](u64 v) { ok &= bench::rewrite_one_by_one(pq, v, n, prev, work); });
    t1 = now();
    ok &= pq.size() == n;
  } else {
    std::fprintf(stderr, "unknown benchmark %s\n", bench.c_str());
    return 2;
  }
  stxxl::stats_data d = stxxl::stats_data(*st) - s0;
  std::printf("RESULT lib=stxxl bench=%s n=%llu seconds=%.3f read_bytes=%llu write_bytes=%llu io_wait_s=%.3f "
              "checksum=%llu ok=%d\n",
              bench.c_str(), (unsigned long long)n, t1 - t0, (unsigned long long)d.get_read_volume(),
              (unsigned long long)d.get_written_volume(), d.get_io_wait_time(), (unsigned long long)checksum,
              ok ? 1 : 0);
  return ok ? 0 : 1;
}
