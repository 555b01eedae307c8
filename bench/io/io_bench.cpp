// Sequential write, then read, of a large volume through block_ostream / block_istream
// on one disk file with O_DIRECT, doing light work per element (a multiply and an xor to
// make each element, an add and an xor to consume it). Prints bandwidths and the share of
// each phase's time the computing thread waited for I/O. bench/io/run.sh sets it next
// to dd on the same disk.
//
// --work K adds K rounds of a 64-bit mixing function per element on both sides, to model
// computation that takes about as long as the disk: then the I/O wait share shows how
// much of the I/O the streams hide behind the computation. The program also times the
// same per-element work without any I/O (compute_seconds) for comparison.
//
//   flow_io_bench [--dir DIR] [--bytes 4GiB] [--block-mib 8] [--buffers 4] [--direct on|off]
//                 [--work K] [--compute-only on]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "flow/io/stats.hpp"
#include "flow/mng/block_istream.hpp"
#include "flow/mng/block_ostream.hpp"
#include "flow/mng/typed_block.hpp"

namespace {

struct options {
  std::string dir = flow::mng::disk_config::default_directory();
  std::uint64_t bytes = std::uint64_t{4} << 30;
  unsigned block_mib = 8;
  std::size_t buffers = 4;
  bool direct = true;
  unsigned work = 0;
  bool compute_only = false; // only time the per-element work, no I/O
};

// K rounds of splitmix64's finaliser: a dependent chain the compiler cannot skip.
inline std::uint64_t work_on(std::uint64_t x, unsigned rounds) {
  for (unsigned r = 0; r < rounds; ++r) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
  }
  return x;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "flow_io_bench: %s\nusage: flow_io_bench [--dir DIR] [--bytes SIZE] "
               "[--block-mib 1|2|4|8|16] [--buffers N] [--direct on|off] [--work K] [--compute-only on]\n",
               why);
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    if (a == "--dir") o.dir = v;
    else if (a == "--bytes") o.bytes = flow::mng::parse_size(v);
    else if (a == "--block-mib") o.block_mib = static_cast<unsigned>(std::stoul(v));
    else if (a == "--buffers") o.buffers = std::stoul(v);
    else if (a == "--direct") o.direct = v == "on";
    else if (a == "--work") o.work = static_cast<unsigned>(std::stoul(v));
    else if (a == "--compute-only") o.compute_only = v == "on";
    else usage(("unknown option " + a).c_str());
  }
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(const char* phase, std::uint64_t bytes, double seconds,
            const flow::io::stats_snapshot& s) {
  const double mib_s = static_cast<double>(bytes) / (1 << 20) / seconds;
  const auto t = s.total();
  std::printf("%s_seconds=%.3f\n%s_MiB_per_s=%.1f\n%s_io_wait_share=%.4f\n", phase, seconds, phase,
              mib_s, phase, seconds > 0 ? s.wait_seconds() / seconds : 0.0);
  std::printf("%s_disk_busy_seconds=%.3f\n%s_service_seconds=%.3f\n", phase, s.busy_seconds, phase,
              t.read_seconds + t.write_seconds);
  std::printf("%s_disk_read_bytes=%llu\n%s_disk_write_bytes=%llu\n%s_requests=%llu\n", phase,
              static_cast<unsigned long long>(t.read_bytes), phase,
              static_cast<unsigned long long>(t.write_bytes), phase,
              static_cast<unsigned long long>(t.reads + t.writes));
}

template <std::size_t BlockBytes> int run(const options& o) {
  using block = flow::mng::typed_block<BlockBytes, std::uint64_t>;
  flow::mng::disk_config cfg;
  cfg.disks.push_back(flow::mng::disk_spec::parse(o.dir));
  cfg.direct = o.direct;
  flow::mng::block_manager bm(cfg);
  const std::uint64_t n = o.bytes / sizeof(std::uint64_t);
  std::printf("disk_file=%s\ndirect=%d\nblock_bytes=%zu\nbuffers=%zu\nbytes=%llu\nwork=%u\n",
              bm.disk_at(0).path().c_str(), bm.disk_at(0).file().direct() ? 1 : 0, BlockBytes,
              o.buffers, static_cast<unsigned long long>(n * sizeof(std::uint64_t)), o.work);

  // The per-element work of each phase without any I/O, for comparison. The work is a
  // running hash (each element depends on the previous state), so neither these loops
  // nor the streamed ones can be vectorised: the times compare like with like.
  {
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t state = 0, sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      state = work_on(state ^ (i * 0x9E3779B97F4A7C15ULL), o.work);
      sum += state;
    }
    const double generate = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    std::uint64_t state2 = 0;
    for (std::uint64_t i = 0; i < n; ++i) state2 = work_on(state2 ^ (i * 0x9E3779B97F4A7C15ULL), o.work);
    std::printf("write_compute_seconds=%.3f\nread_compute_seconds=%.3f\ncompute_check=%llu\n",
                generate, seconds_since(t0), static_cast<unsigned long long>(sum ^ state2));
  }

  if (o.compute_only) return 0;

  std::uint64_t written_sum = 0;
  flow::mng::block_sequence seq;
  {
    flow::io::scoped_stats phase;
    const auto t0 = std::chrono::steady_clock::now();
    flow::mng::block_ostream<block> out(bm, o.buffers);
    std::uint64_t state = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      state = work_on(state ^ (i * 0x9E3779B97F4A7C15ULL), o.work); // per-element work
      written_sum += state;
      out.push(state);
    }
    seq = out.finish();
    report("write", n * sizeof(std::uint64_t), seconds_since(t0), phase.elapsed());
  }
  std::uint64_t read_sum = 0, state = 0;
  {
    flow::io::scoped_stats phase;
    const auto t0 = std::chrono::steady_clock::now();
    flow::mng::block_istream<block> in(seq, o.buffers);
    for (; !in.empty(); ++in) {
      read_sum += *in;
      state = work_on(state ^ *in, o.work); // per-element work
    }
    report("read", n * sizeof(std::uint64_t), seconds_since(t0), phase.elapsed());
  }
  seq.free(bm);
  std::printf("checksum_ok=%d\nstate=%llu\n", read_sum == written_sum ? 1 : 0,
              static_cast<unsigned long long>(state));
  return read_sum == written_sum ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    switch (o.block_mib) {
    case 1: return run<std::size_t{1} << 20>(o);
    case 2: return run<std::size_t{2} << 20>(o);
    case 4: return run<std::size_t{4} << 20>(o);
    case 8: return run<std::size_t{8} << 20>(o);
    case 16: return run<std::size_t{16} << 20>(o);
    default: usage("--block-mib must be 1, 2, 4, 8 or 16");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
