// STXXL 1.4.1's side of bench/run's sort rows (Flow's: bench/sort/edges.flow, rec100.flow):
// the same records (bench/records.hpp) into stxxl::stream::sort (runs_creator +
// runs_merger, 2 MiB blocks, parallel mode via OpenMP as Debian builds it), then
// stream::unique + count + checksum, or a sortedness/checksum scan. The disk comes from
// $STXXLCFG.
//
//   stxxl_sort_bench edges LOG2_N MEM_MIB | rec100 DATA_MIB MEM_MIB
#include <stxxl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../records.hpp"

using bench::edge;
using bench::now;
using bench::record;

struct edge_cmp {
  bool operator()(const edge& x, const edge& y) const {
    return x.src < y.src || (x.src == y.src && x.dst < y.dst);
  }
  edge min_value() const { return {0, 0, 0, 0}; }
  edge max_value() const { return {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}; }
};

struct edge_equal {
  bool operator()(const edge& x, const edge& y) const { return x.src == y.src && x.dst == y.dst; }
};

struct record_cmp {
  bool operator()(const record& x, const record& y) const { return bench::record_less(x, y); }
  record min_value() const {
    record r;
    std::memset(&r, 0, sizeof r);
    return r;
  }
  record max_value() const {
    record r;
    std::memset(&r, 0xff, sizeof r);
    return r;
  }
};

class edge_stream {
public:
  typedef edge value_type;
  edge_stream(std::uint64_t n) : n_(n), nodes_(n / 4) {
    if (n_) cur_ = bench::edge_at(0, nodes_);
  }
  bool empty() const { return i_ == n_; }
  const edge& operator*() const { return cur_; }
  const edge* operator->() const { return &cur_; }
  edge_stream& operator++() {
    if (++i_ < n_) cur_ = bench::edge_at(i_, nodes_);
    return *this;
  }

private:
  std::uint64_t n_, nodes_, i_ = 0;
  edge cur_{};
};

class record_stream {
public:
  typedef record value_type;
  record_stream(std::uint64_t n) : n_(n) {
    if (n_) cur_ = bench::record_at(0);
  }
  bool empty() const { return i_ == n_; }
  const record& operator*() const { return cur_; }
  const record* operator->() const { return &cur_; }
  record_stream& operator++() {
    if (++i_ < n_) cur_ = bench::record_at(i_);
    return *this;
  }

private:
  std::uint64_t n_, i_ = 0;
  record cur_;
};

int main(int argc, char** argv) {
  if (!bench::has_args(argc, argv, 3, "edges LOG2_N MEM_MIB | rec100 DATA_MIB MEM_MIB")) return 2;
  const std::string bench = argv[1];
  const std::size_t memory = std::size_t(std::atoll(argv[3])) << 20;
  stxxl::stats* st = stxxl::stats::get_instance();
  stxxl::block_manager::get_instance(); // open the disk before timing
  const stxxl::stats_data s0(*st);
  double t0 = now(), t1 = 0, t2 = 0;
  std::uint64_t n = 0, count = 0, checksum = 0;
  bool ok = true;
  if (bench == "edges") {
    n = bench::pow2_arg(argv[2]);
    edge_stream gen(n);
    typedef stxxl::stream::sort<edge_stream, edge_cmp> sorter_type;
    sorter_type sorted(gen, edge_cmp(), memory);
    t1 = now();
    stxxl::stream::unique<sorter_type, edge_equal> uniq(sorted, edge_equal());
    for (; !uniq.empty(); ++uniq) {
      ++count;
      checksum += bench::edge_checksum(*uniq);
    }
    t2 = now();
  } else if (bench == "rec100") {
    n = (std::uint64_t(std::atoll(argv[2])) << 20) / sizeof(record);
    record_stream gen(n);
    typedef stxxl::stream::sort<record_stream, record_cmp> sorter_type;
    sorter_type sorted(gen, record_cmp(), memory);
    t1 = now();
    bench::record_scan scan;
    for (; !sorted.empty(); ++sorted) scan(*sorted);
    t2 = now();
    count = scan.count;
    checksum = scan.checksum;
    ok = scan.sorted && count == n;
  } else {
    return 2;
  }
  const stxxl::stats_data s = stxxl::stats_data(*st) - s0;
  std::printf("RESULT lib=stxxl bench=%s n=%llu seconds=%.3f formation_s=%.3f merge_s=%.3f count=%llu "
              "checksum=%llu read_bytes=%lld write_bytes=%lld io_wait_s=%.3f passes=- ok=%d\n",
              bench.c_str(), static_cast<unsigned long long>(n), t2 - t0, t1 - t0, t2 - t1,
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(checksum),
              static_cast<long long>(s.get_read_volume()), static_cast<long long>(s.get_written_volume()),
              s.get_io_wait_time(), ok);
  return ok ? 0 : 1;
}
