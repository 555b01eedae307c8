// The block cache of an external vector as a script's v[i] uses it: random reads and
// writes (get, set, modify) against a std::vector reference, accesses that cross blocks,
// dirty blocks evicted and read back, and the cache resized for a phase and restored.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "flow/containers/vector.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/stats.hpp"
#include "flow/script/values.hpp"
#include "test_support.hpp"

using namespace flow;

namespace {
constexpr std::size_t block_bytes = 4096;
constexpr std::size_t per_block = block_bytes / sizeof(std::uint64_t);

template <class F> void on_each_disk(F body) {
  test::scratch_dir dir;
  for (int direct = 0; direct < 2; ++direct) {
    SCOPED_TRACE(direct ? "O_DIRECT disk file" : "memory disk");
    mng::block_manager bm(direct ? test::direct_config(dir.path()) : test::memory_config());
    body(bm);
    EXPECT_EQ(bm.allocated_bytes(), 0u) << "blocks leaked";
  }
}
} // namespace

TEST(VectorCache, RandomReadsAndWritesMatchAReference) {
  on_each_disk([](mng::block_manager& bm) {
    for (std::size_t slots : {2u, 3u, 8u}) {
      SCOPED_TRACE("cache of " + std::to_string(slots) + " blocks");
      const std::uint64_t n = 20 * per_block + 17; // a partial last block
      containers::vector<std::uint64_t> v(2 * block_bytes, block_bytes, bm);
      std::vector<std::uint64_t> ref;
      for (std::uint64_t i = 0; i < n; ++i) {
        v.push_back(i * 3);
        ref.push_back(i * 3);
      }
      v.resize_cache(slots * block_bytes);
      std::mt19937_64 gen(slots);
      for (int step = 0; step < 20000; ++step) {
        const std::uint64_t i = gen() % n;
        switch (gen() % 4) {
        case 0: ASSERT_EQ(v.get(i), ref[i]) << "at " << i; break;
        case 1: {
          const std::uint64_t x = gen();
          v.set(i, x);
          ref[i] = x;
          break;
        }
        case 2: {
          v.modify(i) += 5; // read, change in place, written back when evicted
          ref[i] += 5;
          break;
        }
        default: { // the neighbour across a block boundary, both ways
          const std::uint64_t b = (i / per_block + 1) * per_block;
          if (b < n) {
            v.modify(b - 1) = v.get(b) + 1;
            ref[b - 1] = ref[b] + 1;
            ASSERT_EQ(v.get(b - 1), ref[b - 1]);
          }
        }
        }
      }
      v.restore_cache();
      std::uint64_t i = 0;
      for (auto r = v.scan(); !r.empty(); ++r, ++i) ASSERT_EQ(*r, ref[i]) << "at " << i;
      EXPECT_EQ(i, n);
    }
  });
}

TEST(VectorCache, DirtyBlocksSurviveEviction) {
  on_each_disk([](mng::block_manager& bm) {
    containers::vector<std::uint64_t> v(2 * block_bytes, block_bytes, bm);
    const std::uint64_t blocks = 10, n = blocks * per_block;
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(0);
    // Change one element in every block, in an order that evicts each changed block
    // from the two-block cache before it is read again.
    for (std::uint64_t b = 0; b < blocks; ++b) v.modify(b * per_block + b) = 1000 + b;
    for (std::uint64_t b = blocks; b-- > 0;) {
      EXPECT_EQ(v.get(b * per_block + b), 1000 + b);
      EXPECT_EQ(v.get(b * per_block + (b + 1) % per_block), 0u);
    }
    // Pushing after random writes keeps both.
    v.push_back(7);
    EXPECT_EQ(v.get(n), 7u);
    EXPECT_EQ(v.get(3 * per_block + 3), 1003u);
  });
}

TEST(VectorCache, ResizedCacheStaysWithinItsMemory) {
  test::scratch_dir dir;
  mng::block_manager bm(test::memory_config());
  containers::vector<std::uint64_t> v(2 * block_bytes, block_bytes, bm);
  for (std::uint64_t i = 0; i < 64 * per_block; ++i) v.push_back(i);
  const auto base = io::buffer_memory::current();
  io::buffer_memory::reset_peak();
  v.resize_cache(5 * block_bytes);
  std::mt19937_64 gen(3);
  for (int k = 0; k < 5000; ++k) {
    const std::uint64_t i = gen() % v.size();
    v.modify(i) = v.get(i) + 1;
  }
  EXPECT_LE(io::buffer_memory::peak() - base, 5 * block_bytes + 2 * block_bytes);
  v.restore_cache();
  EXPECT_EQ(v.memory(), 2 * block_bytes);
}

TEST(VectorCache, ScriptIndexErrorsNameTheLine) {
  mng::block_manager bm(test::memory_config());
  containers::vector<std::uint64_t> v(2 * block_bytes, block_bytes, bm);
  v.push_back(1);
  EXPECT_EQ(script::vector_get(v, 0, "s.flow:3:5"), 1u);
  script::vector_ref(v, 0, "s.flow:3:5") = 9;
  EXPECT_EQ(v.get(0), 9u);
  try {
    script::vector_get(v, 1, "s.flow:4:7");
    FAIL() << "no error";
  } catch (const script::script_error& e) {
    EXPECT_STREQ(e.what(), "s.flow:4:7: index 1 is out of range for a vector of 1");
  }
  EXPECT_THROW(script::vector_ref(v, 5, "s.flow:5:1"), script::script_error);
}

// A vector's last block moves only the 4 KiB pages its elements fill, when written,
// scanned or read back for more pushes: BFS's frontier vectors, a few thousand elements
// a round, wrote and read whole 4 MiB blocks at 1 GiB.
TEST(VectorCache, TheLastBlockMovesOnlyThePagesItsElementsFill) {
  constexpr std::size_t big_block = 16 * 4096;
  constexpr std::uint64_t per_big = big_block / sizeof(std::uint64_t);
  on_each_disk([](mng::block_manager& bm) {
    const auto moved = [] { return io::stats::instance().snapshot().total(); };
    containers::vector<std::uint64_t> v(2 * big_block, big_block, bm);
    std::uint64_t n = 2 * per_big + 1000; // 8,000 bytes in the last block: two pages
    auto before = moved();
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(i);
    v.flush();
    EXPECT_EQ(moved().write_bytes - before.write_bytes, 2 * big_block + 2 * 4096);

    before = moved();
    std::uint64_t i = 0;
    for (auto r = v.scan(); !r.empty(); ++r, ++i) ASSERT_EQ(*r, i);
    EXPECT_EQ(i, n);
    EXPECT_EQ(moved().read_bytes - before.read_bytes, 2 * big_block + 2 * 4096);

    // More pushes read the partial block back (its two pages), fill it (a whole block
    // written) and start a fourth block of one element (one page).
    before = moved();
    for (; n < 3 * per_big + 1; ++n) v.push_back(n);
    v.release_cache();
    EXPECT_EQ(moved().read_bytes - before.read_bytes, 2 * 4096);
    EXPECT_EQ(moved().write_bytes - before.write_bytes, big_block + 4096);
    before = moved();
    EXPECT_EQ(v.get(n - 1), n - 1); // the last block: one page
    EXPECT_EQ(v.get(n - 2), n - 2); // a whole block
    EXPECT_EQ(moved().read_bytes - before.read_bytes, 4096 + big_block);
    v.release_cache();
    i = 0;
    for (auto r = v.scan(); !r.empty(); ++r, ++i) ASSERT_EQ(*r, i);
    EXPECT_EQ(i, n);
  });
}

TEST(HeapArray, CheckedIndexFillAndSize) {
  script::heap_array<std::uint32_t> a(5, 7u, "parent", "s.flow:2:1");
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(a.at(4, "x"), 7u);
  a.at(2, "x") = 3;
  a.fill(1);
  EXPECT_EQ(a.at(2, "x"), 1u);
  script::heap_array<bool> b(3, "flags", "s.flow:3:1");
  EXPECT_FALSE(b.at(0, "x"));
  try {
    a.at(5, "s.flow:9:4");
    FAIL() << "no error";
  } catch (const script::script_error& e) {
    EXPECT_STREQ(e.what(), "s.flow:9:4: index 5 is out of range for array parent of 5");
  }
}
