// Flow's external priority queue on the benchmarks of the bulk-parallel paper, beside
// stxxl_pq_bench.cpp (same items, same random stream, same budget). One "RESULT" line
// per run.
//
//   flow_pq_bench BENCH LOG2_N DISK_DIR
//     push-rand-pop   push n random u64, pop all (checks order)
//     push-asc-pop    push 0..n-1, pop all
//     bulk-rewrite    ascending fill (not timed), then bulks of random size 0..640000:
//                     pop v items and push v items with higher keys, until n were popped;
//                     one-by-one (top/pop/push)
//     bulk-rewrite-bulk  the same with bulk_pop / bulk_push_begin/bulk_push/bulk_push_end
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flow/containers/priority_queue.hpp"
#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "pq_bench.hpp"

using bench::now;
using u64 = std::uint64_t;

int main(int argc, char** argv) {
  if (!bench::has_args(argc, argv, 3, "push-rand-pop|push-asc-pop|bulk-rewrite|bulk-rewrite-bulk LOG2_N DIR"))
    return 2;
  const std::string bench = argv[1];
  const u64 n = bench::pow2_arg(argv[2]);
  flow::mng::disk_config cfg;
  cfg.disks.push_back(flow::mng::disk_spec::parse(argv[3]));
  cfg.direct = true;
  flow::mng::block_manager bm(cfg);
  constexpr u64 budget = 256ull << 20;
  constexpr auto plan = flow::containers::plan_priority_queue(budget, 1ull << 28, 8, 1u << 20);
  static_assert(plan.feasible);
  flow::containers::priority_queue<u64> pq(plan, bm);
  bool ok = true;
  double t0 = 0, t1 = 0;
  flow::io::scoped_stats phase;
  if (bench == "push-rand-pop" || bench == "push-asc-pop") {
    phase.restart();
    t0 = now();
    ok = bench::push_pop(pq, n, bench == "push-rand-pop");
    t1 = now();
  } else if (bench == "bulk-rewrite" || bench == "bulk-rewrite-bulk") {
    const bool bulk = bench == "bulk-rewrite-bulk";
    for (u64 i = 0; i < n; ++i) pq.push(i); // ascending fill: not measured
    phase.restart();
    t0 = now();
    u64 prev = 0;
    std::vector<u64> work;
    bench::for_each_bulk(n, [&](u64 v) {
      if (bulk) {
        pq.bulk_pop(work, v);
        for (u64 x : work) {
          ok &= x >= prev;
          prev = x;
        }
        pq.bulk_push_begin(v);
        for (u64 x : work) pq.bulk_push(x + n);
        pq.bulk_push_end();
      } else {
        ok &= bench::rewrite_one_by_one(pq, v, n, prev, work);
      }
    });
    t1 = now();
    ok &= pq.size() == n;
  } else {
    std::fprintf(stderr, "unknown benchmark %s\n", bench.c_str());
    return 2;
  }
  const auto snap = phase.elapsed();
  const auto io = snap.total();
  const auto& st = pq.stats();
  std::printf("RESULT lib=flow bench=%s n=%llu seconds=%.3f read_bytes=%llu write_bytes=%llu ok=%d\n",
              bench.c_str(), (unsigned long long)n, t1 - t0, (unsigned long long)io.read_bytes,
              (unsigned long long)io.write_bytes, ok ? 1 : 0);
  std::fprintf(stderr,
               "  flow: heap flushes %llu, internal merges %llu, external flushes %llu, external merges "
               "%llu, refills %llu, parallel pieces %llu; planned I/O for %llu pushes, then as many pops: %llu bytes; "
               "read wait %.2f s, write wait %.2f s, disk busy %.2f s\n",
               (unsigned long long)st.heap_flushes, (unsigned long long)st.internal_merges,
               (unsigned long long)st.external_flushes, (unsigned long long)st.external_merges,
               (unsigned long long)st.refills, (unsigned long long)st.parallel_pieces, (unsigned long long)n,
               (unsigned long long)plan.io_bytes(n, n), snap.read_wait_seconds, snap.write_wait_seconds,
               snap.busy_seconds);
  return ok ? 0 : 1;
}
