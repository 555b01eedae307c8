// Buffered block streams, the prefetcher and the buffered writer, for every element size
// and for counts around block boundaries, on a memory disk and on O_DIRECT disk files.
#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "flow/io/buffer.hpp"
#include "flow/io/error.hpp"
#include "flow/mng/block_istream.hpp"
#include "flow/mng/block_ostream.hpp"
#include "flow/mng/buffered_writer.hpp"
#include "flow/mng/prefetcher.hpp"
#include "flow/mng/typed_block.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::mng;
using flow::test::value_of;

template <class T> class BlockStreams : public ::testing::Test {
protected:
  using block = typed_block<4096, T>;
  static constexpr std::uint64_t B = block::size;

  // Runs `body(bm)` on a memory disk, then on two O_DIRECT disk files.
  template <class F> void on_each_disk(F body) {
    {
      SCOPED_TRACE("memory disk");
      block_manager bm(test::memory_config());
      body(bm);
      EXPECT_EQ(bm.allocated_bytes(), 0u);
    }
    test::scratch_dir dir;
    {
      SCOPED_TRACE("O_DIRECT disk files");
      block_manager bm(test::direct_config(dir.path(), 2));
      body(bm);
      EXPECT_EQ(bm.allocated_bytes(), 0u);
    }
    EXPECT_TRUE(dir.entries().empty());
  }
};
TYPED_TEST_SUITE(BlockStreams, test::element_types);

TYPED_TEST(BlockStreams, WriteThenReadBackEveryBoundaryCount) {
  using T = TypeParam;
  using block = typename TestFixture::block;
  this->on_each_disk([](block_manager& bm) {
    for (std::uint64_t n : test::boundary_counts(TestFixture::B)) {
      SCOPED_TRACE("count " + std::to_string(n));
      block_ostream<block> out(bm, 2, allocation_strategy::random_cycling(n));
      for (std::uint64_t i = 0; i < n; ++i) out.push(value_of<T>(i));
      EXPECT_EQ(out.size(), n);
      block_sequence seq = out.finish();
      EXPECT_EQ(seq.size, n);
      EXPECT_EQ(seq.blocks.size(), (n + TestFixture::B - 1) / TestFixture::B);

      for (std::size_t buffers : {1, 3}) {
        block_istream<block> in(seq, buffers);
        EXPECT_EQ(in.remaining(), n);
        std::uint64_t i = 0;
        for (; !in.empty(); ++in, ++i) {
          ASSERT_TRUE(*in == value_of<T>(i)) << "element " << i;
        }
        EXPECT_EQ(i, n);
      }
      seq.free(bm);
    }
  });
}

TYPED_TEST(BlockStreams, BatchAccessAndFreeingWhileReading) {
  using T = TypeParam;
  using block = typename TestFixture::block;
  this->on_each_disk([](block_manager& bm) {
    const std::uint64_t n = 3 * TestFixture::B + 5;
    block_ostream<block> out(bm, 3);
    for (std::uint64_t i = 0; i < n; ++i) out << value_of<T>(i);
    block_sequence seq = out.finish();
    const auto allocated = bm.allocated_bytes();
    EXPECT_EQ(allocated, seq.blocks.size() * 4096);
    {
      block_istream<block> in(seq, 2, &bm); // consumes the sequence
      std::uint64_t i = 0;
      while (!in.empty()) {
        auto batch = in.batch();
        ASSERT_FALSE(batch.empty());
        for (const T& x : batch) ASSERT_TRUE(x == value_of<T>(i++));
        in.advance(batch.size());
        EXPECT_LT(bm.allocated_bytes(), allocated) << "read blocks are freed as it goes";
      }
      EXPECT_EQ(i, n);
    }
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  });
}

TYPED_TEST(BlockStreams, AbandonedOutputStreamFreesItsBlocks) {
  using T = TypeParam;
  using block = typename TestFixture::block;
  this->on_each_disk([](block_manager& bm) {
    block_ostream<block> out(bm, 2);
    for (std::uint64_t i = 0; i < 4 * TestFixture::B; ++i) out.push(value_of<T>(i));
    // destroyed without finish()
  });
}

TEST(Prefetcher, FollowsAnArbitraryPredictionSequenceWhileHoldingSeveralBlocks) {
  using block = typed_block<4096, std::uint64_t>;
  test::scratch_dir dir;
  block_manager bm(test::direct_config(dir.path(), 2));
  auto strategy = allocation_strategy::random_cycling(11);
  const std::size_t blocks = 40;
  auto ids = bm.allocate(blocks, 4096, strategy);
  {
    buffered_writer<block> writer(3);
    for (std::size_t i = 0; i < blocks; ++i) {
      block* b = writer.get_free_block();
      for (auto& x : *b) x = i;
      writer.write(b, ids[i]);
    }
    writer.flush();
  }
  // A merge-like order: shuffled, and the consumer keeps up to 3 blocks at once.
  std::vector<std::size_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  std::vector<block_id> sequence;
  for (auto i : order) sequence.push_back(ids[i]);
  const auto before = io::buffer_memory::current();
  block_prefetcher<block> pf(sequence, 5);
  EXPECT_EQ(io::buffer_memory::current(), before + 5 * 4096);
  std::vector<block*> held;
  std::size_t k = 0;
  while (!pf.empty()) {
    block* b = pf.pull();
    EXPECT_EQ((*b)[0], order[k]);
    EXPECT_EQ((*b)[block::size - 1], order[k]);
    ++k;
    held.push_back(b);
    if (held.size() == 3) { // give back the middle one first: any order is fine
      pf.give_back(held[1]);
      held.erase(held.begin() + 1);
    }
  }
  for (auto* b : held) pf.give_back(b);
  EXPECT_EQ(k, blocks);
  bm.free(ids);
}

TEST(Prefetcher, PullWhileHoldingEveryBufferIsALogicError) {
  using block = typed_block<4096, int>;
  block_manager bm(test::memory_config());
  auto s = allocation_strategy::striping();
  auto ids = bm.allocate(3, 4096, s);
  block b;
  for (auto& id : ids) b.write(id)->wait();
  block_prefetcher<block> pf(ids, 1);
  block* held = pf.pull();
  EXPECT_THROW(pf.pull(), std::logic_error);
  pf.give_back(held);
  EXPECT_NO_THROW(pf.give_back(pf.pull()));
  bm.free(ids);
}

TEST(BufferedWriter, ReportsAFailedWriteWhenItsBufferIsNeeded) {
  using block = typed_block<4096, int>;
  disk_config cfg;
  cfg.disks.push_back(disk_spec::parse("/dev/full"));
  cfg.direct = false;
  block_manager bm(cfg);
  auto s = allocation_strategy::striping();
  buffered_writer<block> w(1);
  w.write(w.get_free_block(), bm.allocate(4096, s));
  EXPECT_THROW(w.get_free_block(), disk_full_error);
}

TEST(BlockOstream, DiskFullWhileWritingIsReportedAndLeavesNothingAllocated) {
  using block = typed_block<4096, std::uint64_t>;
  test::scratch_dir dir;
  {
    disk_config cfg;
    cfg.disks.push_back(disk_spec::parse(dir.path() + ":64KiB"));
    block_manager bm(cfg);
    EXPECT_THROW(
        {
          block_ostream<block> out(bm, 2);
          for (std::uint64_t i = 0; i < 100 * block::size; ++i) out.push(i);
        },
        disk_full_error);
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(BlockStreams, SeveralThreadsShareOneBlockManager) {
  using block = typed_block<4096, std::uint64_t>;
  test::scratch_dir dir;
  {
    block_manager bm(test::direct_config(dir.path(), 2));
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (std::uint64_t t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 5; ++round) {
          const std::uint64_t n = 7 * block::size + t;
          block_ostream<block> out(bm, 2, allocation_strategy::fully_random(t));
          for (std::uint64_t i = 0; i < n; ++i) out.push(i * 4 + t);
          block_sequence seq = out.finish();
          block_istream<block> in(seq, 2, &bm);
          std::uint64_t i = 0;
          for (; !in.empty(); ++in, ++i) {
            if (*in != i * 4 + t) ++failures;
          }
          if (i != n) ++failures;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(bm.allocated_bytes(), 0u);
  }
  EXPECT_TRUE(dir.entries().empty());
}
