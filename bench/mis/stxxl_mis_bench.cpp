// STXXL 1.4.1's sides of bench/run's MIS row: the STXXL paper's maximal independent set
// benchmark (random graph -> sort by (src, dst) -> unique -> time-forward processing with
// a priority queue), on the same edges as bench/mis/mis.flow (bench::edge_at, self loops dropped), in the
// paper's two styles:
//
//   stxxl_mis_bench stl LOG2_EDGES      STL-user layer: the edges pushed into an
//                                       stxxl::vector, stxxl::sort, then one scan that
//                                       skips duplicates and feeds the queue
//   stxxl_mis_bench stream LOG2_EDGES   pipelined: a generator stream -> stream::sort ->
//                                       stream::unique -> the same time-forward loop
//
// Memory (256 MiB in all, as Flow's script): the queue gets 64 MiB plus 32 MiB prefetch and
// 32 MiB write pool (the pq row's 2:1:1 split of half the budget, the rest for the sort);
// the pipelined sort gets 128 MiB (its merger runs beside the queue), the STL sort 224
// MiB (it runs alone; the vectors' caches are 16 MiB each). The disk comes from $STXXLCFG.
// Prints one RESULT line: time, I/O bytes and wait from stxxl::stats, the set's size and
// checksum (sum of bench::mix(node)), which bench/run checks against Flow's.
#include <stxxl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../records.hpp"

using bench::edge;
using bench::edge_at;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

struct edge_cmp {
  bool operator()(const edge& x, const edge& y) const { return x.src < y.src || (x.src == y.src && x.dst < y.dst); }
  edge min_value() const { return {0, 0, 0, 0}; }
  edge max_value() const { return {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}; }
};

struct edge_equal {
  bool operator()(const edge& x, const edge& y) const { return x.src == y.src && x.dst == y.dst; }
};

struct greater_u32 { // STXXL's queue pops the *largest* under its comparator
  bool operator()(const u32& a, const u32& b) const { return a > b; }
  u32 min_value() const { return UINT32_MAX; } // the smallest under this order
};

static constexpr stxxl::internal_size_type MiB = 1 << 20;
// MaxItems in units of 1024: one push per edge at most, 2^27 edges.
typedef stxxl::PRIORITY_QUEUE_GENERATOR<u32, greater_u32, 64 * MiB, (u64(1) << 27) / 1024>::result pq_type;
// 4 blocks of 2 MiB per page, 2 pages: a 16 MiB cache.
typedef stxxl::VECTOR_GENERATOR<edge, 4, 2>::result edge_vector;
typedef stxxl::VECTOR_GENERATOR<u32, 4, 2>::result node_vector;

/// The generator stream of the pipelined version: the edges without self loops.
class edge_stream {
public:
  typedef edge value_type;
  edge_stream(u64 n) : n_(n), nodes_(n / 4) { advance(); }
  bool empty() const { return i_ > n_; }
  const edge& operator*() const { return cur_; }
  const edge* operator->() const { return &cur_; }
  edge_stream& operator++() {
    advance();
    return *this;
  }

private:
  void advance() {
    for (; i_ < n_; ++i_) {
      cur_ = edge_at(i_, nodes_);
      if (cur_.src != cur_.dst) break;
    }
    ++i_; // past n_ when no edge is left
  }
  u64 n_, nodes_, i_ = 0;
  edge cur_{};
};

/// Time-forward processing: a node joins the set unless an earlier member excluded it.
struct time_forward {
  pq_type depend{32 * MiB, 32 * MiB};
  node_vector mis;
  u64 checksum = 0;
  void operator()(const edge& e) {
    while (!depend.empty() && depend.top() < e.src) depend.pop();
    if (depend.empty() || depend.top() != e.src) {
      if (mis.empty() || mis.back() != e.src) {
        mis.push_back(e.src);
        checksum += bench::mix(e.src);
      }
      depend.push(e.dst);
    }
  }
};

int main(int argc, char** argv) {
  if (!bench::has_args(argc, argv, 2, "stl|stream LOG2_EDGES")) return 2;
  const std::string style = argv[1];
  const u64 n = bench::pow2_arg(argv[2]);
  stxxl::stats* st = stxxl::stats::get_instance();
  stxxl::block_manager::get_instance(); // open the disk before timing
  const stxxl::stats_data s0(*st);
  const double t0 = bench::now();
  time_forward tf;
  if (style == "stl") {
    edge_vector edges;
    {
      edge_vector::bufwriter_type w(edges);
      for (u64 i = 0; i < n; ++i) {
        const edge e = edge_at(i, n / 4);
        if (e.src != e.dst) w << e;
      }
      w.finish();
    }
    stxxl::sort(edges.begin(), edges.end(), edge_cmp(), 224 * MiB);
    edge prev{};
    bool first = true;
    for (edge_vector::bufreader_type r(edges); !r.empty(); ++r) {
      if (first || !edge_equal()(*r, prev)) tf(*r);
      prev = *r;
      first = false;
    }
  } else if (style == "stream") {
    edge_stream gen(n);
    typedef stxxl::stream::sort<edge_stream, edge_cmp> sorter_type;
    sorter_type sorted(gen, edge_cmp(), 128 * MiB);
    stxxl::stream::unique<sorter_type, edge_equal> uniq(sorted, edge_equal());
    for (; !uniq.empty(); ++uniq) tf(*uniq);
  } else {
    std::fprintf(stderr, "unknown style %s\n", style.c_str());
    return 2;
  }
  const double t1 = bench::now();
  const stxxl::stats_data s = stxxl::stats_data(*st) - s0;
  std::printf("RESULT lib=stxxl-%s n=%llu seconds=%.3f read_bytes=%lld write_bytes=%lld io_wait_s=%.3f "
              "size=%llu checksum=%llu\n",
              style.c_str(), static_cast<unsigned long long>(n), t1 - t0,
              static_cast<long long>(s.get_read_volume()), static_cast<long long>(s.get_written_volume()),
              s.get_io_wait_time(), static_cast<unsigned long long>(tf.mis.size()),
              static_cast<unsigned long long>(tf.checksum));
  return 0;
}
