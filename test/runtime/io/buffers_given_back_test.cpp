// Buffers go back when the plan says so: a freed buffer leaves the resident memory (it
// is unmapped, not kept by malloc), a shrunk buffer gives back its end, a file reader and
// a merge free their buffers on close(), a vector's release_cache() frees its cached blocks and keeps its elements,
// and a merge planned in memory still gets its minimum and two more buffers when its
// phase has room (a sort that gets more than its estimate writes runs).
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/containers/vector.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/typed_file.hpp"
#include "flow/plan/memory_plan.hpp"
#include "test_support.hpp"

using namespace flow;

namespace {
/// VmRSS of this process in bytes.
std::uint64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  std::uint64_t kib = 0;
  while (status >> key)
    if (key == "VmRSS:" && status >> kib) return kib * 1024;
  return 0;
}
} // namespace

TEST(BuffersGivenBack, AFreedBufferLeavesTheResidentMemory) {
  // 64 buffers of 1 MiB, touched and freed (with malloc, glibc's mmap threshold rose to
  // 1 MiB), then 64 of 512 KiB between 64 of 4 KiB that stay: from malloc's heap, the
  // freed 512 KiB buffers stayed resident (32 MiB; an aligned_alloc program with this
  // pattern: 3 MiB before, 35 MiB after).
  const std::uint64_t before = resident_bytes();
  const std::uint64_t counted = io::buffer_memory::current();
  {
    std::vector<io::aligned_buffer> big, mid, small;
    for (int i = 0; i < 64; ++i) {
      big.emplace_back(std::size_t{1} << 20);
      std::memset(big.back().data(), i + 1, big.back().size());
    }
    EXPECT_EQ(io::buffer_memory::current(), counted + (64u << 20));
    EXPECT_GE(resident_bytes(), before + (60u << 20));
    big.clear();
    for (int i = 0; i < 64; ++i) {
      mid.emplace_back(std::size_t{512} << 10);
      std::memset(mid.back().data(), 1, mid.back().size());
      small.emplace_back(4096);
      std::memset(small.back().data(), 1, small.back().size());
    }
    mid.clear();
    EXPECT_EQ(io::buffer_memory::current(), counted + 64 * 4096);
    EXPECT_LT(resident_bytes(), before + (8u << 20)) << "freed buffers stayed resident";
  }
  EXPECT_EQ(io::buffer_memory::current(), counted);
}

TEST(BuffersGivenBack, AShrunkBufferKeepsItsStartAndGivesBackTheRest) {
  const std::uint64_t counted = io::buffer_memory::current();
  io::aligned_buffer b(std::size_t{1} << 20);
  std::memset(b.data(), 7, b.size());
  EXPECT_EQ(io::buffer_memory::current(), counted + (1u << 20));
  ASSERT_TRUE(b.shrink(10000));
  EXPECT_EQ(b.size(), 10000u);
  EXPECT_EQ(io::buffer_memory::current(), counted + 10000);
  EXPECT_EQ(b.data()[0], std::byte{7});
  EXPECT_EQ(b.data()[9999], std::byte{7});
  EXPECT_TRUE(b.shrink(10000)); // its size already
  b.reset();
  EXPECT_EQ(io::buffer_memory::current(), counted);
}

// A merge that a join or zip stops reading before its end gives its buffers back on
// close(), where its phase ends (not where its statement does).
TEST(BuffersGivenBack, AMergeReadInPartFreesItsBuffersOnClose) {
  mng::block_manager bm(test::memory_config());
  algo::sort_options opt;
  opt.block_manager = &bm;
  opt.block_bytes = 64 << 10;
  const std::uint64_t counted = io::buffer_memory::current();
  algo::runs_creator<std::uint64_t, test::keyed_ascending<std::uint64_t>> runs(1 << 20, {}, opt);
  for (std::uint64_t i = 0; i < 1000000; ++i) runs.push((i * 7919) % 1000003);
  algo::runs_merger<std::uint64_t, test::keyed_ascending<std::uint64_t>> merge(runs.result(), 1 << 20, {}, opt);
  for (int i = 0; i < 1000; ++i) ++merge;
  EXPECT_GT(io::buffer_memory::current(), counted);
  EXPECT_GT(bm.allocated_bytes(), 0u);
  merge.close();
  EXPECT_TRUE(merge.empty());
  EXPECT_EQ(io::buffer_memory::current(), counted);
  EXPECT_EQ(bm.allocated_bytes(), 0u); // its runs' disk blocks too
}

TEST(BuffersGivenBack, AFileReaderFreesItsBuffersAtItsEndAndOnClose) {
  test::scratch_dir dir;
  const std::string path = dir.path() + "/numbers.bin";
  {
    io::file_writer<std::uint64_t> out(path, 64 << 10);
    for (std::uint64_t i = 0; i < 100'000; ++i) out.push(i);
    out.finish();
  }
  const std::uint64_t counted = io::buffer_memory::current();
  {
    io::file_reader<std::uint64_t> in(path, 64 << 10);
    std::uint64_t n = 0, sum = 0;
    for (; !in.empty(); ++in, ++n) sum += *in;
    EXPECT_EQ(n, 100'000u);
    EXPECT_EQ(sum, 100'000ull * 99'999 / 2);
    EXPECT_EQ(io::buffer_memory::current(), counted) << "a reader at its end still holds buffers";
  }
  {
    io::file_reader<std::uint64_t> in(path, 64 << 10);
    EXPECT_GT(io::buffer_memory::current(), counted);
    EXPECT_EQ(*in, 0u);
    in.close(); // stopped early (a break, a take)
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(io::buffer_memory::current(), counted);
  }
  std::remove(path.c_str());
}

TEST(BuffersGivenBack, AVectorReleasesItsCacheAndKeepsItsElements) {
  mng::block_manager bm(test::memory_config());
  constexpr std::size_t block = 4096, per_block = block / sizeof(std::uint64_t);
  containers::vector<std::uint64_t> v(8 * block, block, bm);
  const std::uint64_t counted = io::buffer_memory::current();
  for (std::uint64_t i = 0; i < 10 * per_block + 3; ++i) v.push_back(i);
  v.set(5, 555); // a changed cached block: written before it is freed
  EXPECT_GT(io::buffer_memory::current(), counted);
  v.release_cache();
  EXPECT_EQ(io::buffer_memory::current(), counted);
  EXPECT_EQ(v.get(5), 555u);
  EXPECT_EQ(v.get(10 * per_block + 2), 10 * per_block + 2);
  v.push_back(7); // continues the partial last block
  v.release_cache();
  EXPECT_EQ(v.size(), 10 * per_block + 4);
  EXPECT_EQ(v.back(), 7u);
}

TEST(BuffersGivenBack, AMergePlannedInMemoryKeepsRoomForRuns) {
  // A sort of 100 elements (in memory) alone in 64 MiB with 1 MiB blocks: its merge gets
  // its minimum and two more block buffers, not the 4 KiB the data needs.
  using plan::memory_node, plan::memory_role;
  std::vector<memory_node> nodes(2);
  nodes[0] = {memory_role::sort_runs, 1, {}, 100, 8, true, 1};
  nodes[1] = {memory_role::sort_merge, 2, {}, 100, 8, true, 0};
  plan::memory_planner planner(nodes, 64 << 20, 1 << 20);
  ASSERT_FALSE(planner.assign());
  EXPECT_TRUE(nodes[1].in_memory);
  EXPECT_GE(nodes[1].memory, planner.minimum(nodes[1]) + 2 * (1 << 20));
  // More runs than the estimate: the merge still has a fan-in of at least four.
  const plan::sort_setup s = planner.setup(nodes[0]);
  const auto g = plan::run_formation(s, nodes[0].memory).geometry;
  const std::uint64_t runs = 16, blocks = 64;
  EXPECT_GE(plan::merge(s, g, nodes[1].memory, plan::merge_metadata_bytes(s, runs, blocks)).fan_in, 4u);
}
