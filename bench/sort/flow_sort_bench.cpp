// Flow's side of the sort benchmarks (bench/sort/run.sh runs it beside STXXL's):
//   edges  LOG2_N MEM_MIB DIR   generate 2^LOG2_N random 16-byte edges -> sort by
//                               (src, dst) -> unique -> count
//   rec100 DATA_MIB MEM_MIB DIR sort DATA_MIB of 100-byte records by their 10-byte key
//                               and scan the result (sortedness check, checksum)
//   floor-edges LOG2_N / floor-rec100 DATA_MIB
//                               the compute floor: the same records generated into
//                               memory and sorted there by one std::sort
// Written as the compiler will write it: stream nodes bound by templates, a sort node
// with a memory budget, disks on O_DIRECT files in DIR. Prints one RESULT line.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "flow/io/stats.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/stream/stream.hpp"
#include "records.hpp"

using bench::edge;
using bench::now;
using bench::record;

// What the compiler derives from `order src_dst on Edge = (src asc, dst asc);`
struct src_dst_order {
  bool operator()(const edge& x, const edge& y) const {
    return x.src < y.src || (x.src == y.src && x.dst < y.dst);
  }
  static edge min_value() { return {0, 0, 0, 0}; }
  static edge max_value() { return {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}; }
  using key_type = std::uint64_t;
  static key_type key(const edge& e) { return (std::uint64_t{e.src} << 32) | e.dst; }
  static constexpr bool key_is_total = true;
};

// ... and from `order by_key on Record = (key asc);` with key: [u8; 10]
struct key10_order {
  bool operator()(const record& x, const record& y) const { return bench::record_less(x, y); }
  static record min_value() {
    record r;
    std::memset(r.b, 0, 100);
    return r;
  }
  static record max_value() {
    record r;
    std::memset(r.b, 0xff, 100);
    return r;
  }
  using key_type = std::uint64_t; // the first 8 key bytes, big-endian; ties by operator()
  static key_type key(const record& r) {
    std::uint64_t k;
    std::memcpy(&k, r.b, 8);
    return __builtin_bswap64(k);
  }
  static constexpr bool key_is_total = false;
};

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s edges LOG2_N MEM_MIB DIR | rec100 DATA_MIB MEM_MIB DIR | "
                         "floor-edges LOG2_N | floor-rec100 DATA_MIB\n", argv[0]);
    return 2;
  }
  const std::string bench = argv[1];
  if (bench == "floor-edges" || bench == "floor-rec100") {
    const bool edges = bench == "floor-edges";
    const std::uint64_t n = edges ? std::uint64_t{1} << std::atoi(argv[2])
                                  : (std::uint64_t(std::atoll(argv[2])) << 20) / sizeof(record);
    double t0, t1, t2;
    bool ok;
    if (edges) {
      std::vector<edge> v;
      v.reserve(n);
      t0 = now();
      for (std::uint64_t i = 0; i < n; ++i) v.push_back(bench::random_edge(n / 4));
      t1 = now();
      std::sort(v.begin(), v.end(), src_dst_order());
      t2 = now();
      ok = std::is_sorted(v.begin(), v.end(), src_dst_order());
    } else {
      std::vector<record> v;
      v.reserve(n);
      t0 = now();
      for (std::uint64_t i = 0; i < n; ++i) v.push_back(bench::random_record(i));
      t1 = now();
      std::sort(v.begin(), v.end(), key10_order());
      t2 = now();
      ok = std::is_sorted(v.begin(), v.end(), key10_order());
    }
    std::printf("RESULT lib=std::sort bench=%s n=%llu generate_s=%.3f sort_s=%.3f ok=%d\n",
                edges ? "edges" : "rec100", static_cast<unsigned long long>(n), t1 - t0, t2 - t1, ok);
    return 0;
  }
  if (argc < 5) return 2;
  const std::size_t memory = std::size_t(std::atoll(argv[3])) << 20;
  flow::mng::disk_config cfg;
  cfg.disks.push_back(flow::mng::disk_spec::parse(argv[4]));
  cfg.direct = true;
  flow::mng::block_manager bm(cfg);
  flow::mng::block_manager::set_global(&bm);

  flow::io::scoped_stats io;
  double t0 = now(), t1 = 0, t2 = 0;
  std::uint64_t n = 0, count = 0, checksum = 0;
  unsigned passes = 0;
  bool ok = true;
  flow::algo::sort_timings tm;
  if (bench == "edges") {
    n = std::uint64_t{1} << std::atoi(argv[2]);
    const std::uint64_t nodes = n / 4;
    auto gen = flow::stream::generate(n, [nodes](std::uint64_t) { return bench::random_edge(nodes); });
    auto sorted = flow::stream::sort<src_dst_order>(gen, memory);
    t1 = now();
    passes = sorted.merge_passes();
    count = flow::stream::count(flow::stream::unique(sorted));
    t2 = now();
    tm = sorted.timings();
  } else if (bench == "rec100") {
    n = (std::uint64_t(std::atoll(argv[2])) << 20) / sizeof(record);
    auto gen = flow::stream::generate(n, [](std::uint64_t i) { return bench::random_record(i); });
    auto sorted = flow::stream::sort<key10_order>(gen, memory);
    t1 = now();
    passes = sorted.merge_passes();
    bench::record_scan scan;
    flow::stream::for_each(sorted, scan);
    t2 = now();
    tm = sorted.timings();
    count = scan.count;
    checksum = scan.checksum;
    ok = scan.ok && count == n;
  } else {
    std::fprintf(stderr, "unknown benchmark %s\n", bench.c_str());
    return 2;
  }
  const auto s = io.elapsed();
  const auto tot = s.total();
  std::printf("RESULT lib=flow bench=%s n=%llu seconds=%.3f formation_s=%.3f merge_s=%.3f count=%llu "
              "checksum=%llu read_bytes=%llu write_bytes=%llu io_wait_s=%.3f passes=%u ok=%d\n",
              bench.c_str(), static_cast<unsigned long long>(n), t2 - t0, t1 - t0, t2 - t1,
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(checksum),
              static_cast<unsigned long long>(tot.read_bytes), static_cast<unsigned long long>(tot.write_bytes),
              s.wait_seconds(), passes, ok);
  std::fprintf(stderr,
               "flow timings: fill_wait %.2f run_sort %.2f scratch_wait %.2f write_wait %.2f read_wait %.2f "
               "merge %.2f intermediate %.2f; disk busy %.2f s (read %.2f s, write %.2f s)\n",
               tm.fill_wait, tm.run_sort, tm.scratch_wait, tm.write_wait, tm.read_wait, tm.merge,
               tm.intermediate, s.busy_seconds, tot.read_seconds, tot.write_seconds);
  flow::mng::block_manager::set_global(nullptr);
  return ok ? 0 : 1;
}
