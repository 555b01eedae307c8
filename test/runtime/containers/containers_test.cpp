// External vector, stack and queue against std:: references, for every element size, on
// a memory disk and O_DIRECT files, within their memory budgets.
#include <random>
#include <numeric>
#include <queue>
#include <stack>
#include <vector>

#include <gtest/gtest.h>

#include "flow/containers/queue.hpp"
#include "flow/containers/stack.hpp"
#include "flow/containers/vector.hpp"
#include "flow/io/buffer.hpp"
#include "test_support.hpp"

using namespace flow;
using flow::test::value_of;

namespace {
constexpr std::size_t block_bytes = 4096;

// Runs body(bm) on a memory disk and on an O_DIRECT disk file; checks that every
// block was returned and that buffer memory never exceeded `budget` plus what existed
// before.
template <class F> void on_each_disk(std::size_t budget, F body) {
  test::scratch_dir dir;
  for (int direct = 0; direct < 2; ++direct) {
    SCOPED_TRACE(direct ? "O_DIRECT disk file" : "memory disk");
    mng::block_manager bm(direct ? test::direct_config(dir.path()) : test::memory_config());
    const auto base = io::buffer_memory::current();
    io::buffer_memory::reset_peak();
    body(bm);
    EXPECT_LE(io::buffer_memory::peak() - base, budget) << "memory budget exceeded";
    EXPECT_EQ(io::buffer_memory::current(), base) << "buffers leaked";
    EXPECT_EQ(bm.allocated_bytes(), 0u) << "blocks leaked";
  }
  EXPECT_TRUE(dir.entries().empty());
}

// A stack or queue under test and its std reference (std::stack or std::queue of the
// indices whose value_of<T> it holds), put through the same random pushes and pops.
template <class T, class C, class Ref> class against_reference {
public:
  against_reference(C& c, std::uint64_t seed) : c_(c), rng_(seed) {}
  /// `ops` operations, each a push with probability push_percent% (always when empty),
  /// else a pop; every popped element and every size must agree with the reference.
  void run(std::uint64_t ops, unsigned push_percent) {
    for (std::uint64_t k = 0; k < ops; ++k) {
      if (ref_.empty() || rng_() % 100 < push_percent) {
        c_.push(value_of<T>(next_));
        ref_.push(next_++);
      } else {
        ASSERT_TRUE(next_out(c_) == value_of<T>(next_out(ref_)));
        c_.pop();
        ref_.pop();
      }
      ASSERT_EQ(c_.size(), ref_.size());
    }
  }
  /// Pops both to the end, checking each element; then `c` must be empty too.
  void drain() {
    while (!ref_.empty()) {
      ASSERT_TRUE(next_out(c_) == value_of<T>(next_out(ref_)));
      c_.pop();
      ref_.pop();
    }
    EXPECT_TRUE(c_.empty());
  }

private:
  /// What pop removes next: top() of a stack, front() of a queue.
  template <class X> static decltype(auto) next_out(X& x) {
    if constexpr (requires { x.top(); }) return x.top();
    else return x.front();
  }
  C& c_;
  Ref ref_;
  std::mt19937_64 rng_;
  std::uint64_t next_ = 0;
};
} // namespace

template <class T> class Containers : public ::testing::Test {
protected:
  static constexpr std::uint64_t B = mng::typed_block<block_bytes, T>::size;
};
TYPED_TEST_SUITE(Containers, test::element_types);

TYPED_TEST(Containers, VectorPushScanGetSetAcrossBoundaries) {
  using T = TypeParam;
  const std::size_t budget = 3 * block_bytes;
  on_each_disk(budget, [&](mng::block_manager& bm) {
    for (std::uint64_t n : test::boundary_counts(TestFixture::B)) {
      SCOPED_TRACE("count " + std::to_string(n));
      containers::vector<T> v(budget, block_bytes, bm);
      for (std::uint64_t i = 0; i < n; ++i) v.push_back(value_of<T>(i));
      ASSERT_EQ(v.size(), n);
      EXPECT_EQ(v.empty(), n == 0);
      if (n) {
        EXPECT_TRUE(v.back() == value_of<T>(n - 1));
        EXPECT_TRUE(v.get(0) == value_of<T>(0));
      }
      std::uint64_t i = 0;
      for (auto r = v.scan(); !r.empty(); ++r, ++i) ASSERT_TRUE(*r == value_of<T>(i));
      EXPECT_EQ(i, n);
      // Overwrite every third element (random access through the cache), then check all.
      for (std::uint64_t k = 0; k < n; k += 3) v.set(k, value_of<T>(k + 1000000));
      for (std::uint64_t k = 0; k < n; ++k) {
        ASSERT_TRUE(v[k] == value_of<T>(k % 3 == 0 ? k + 1000000 : k)) << k;
      }
      // Appending after a scan continues the partial tail block.
      v.push_back(value_of<T>(7));
      EXPECT_TRUE(v.back() == value_of<T>(7));
      EXPECT_EQ(v.size(), n + 1);
      EXPECT_THROW(v.get(n + 1), std::out_of_range);
    }
  });
}

TYPED_TEST(Containers, StackMatchesStdStackUnderRandomOperations) {
  using T = TypeParam;
  const std::size_t budget = 5 * block_bytes;
  on_each_disk(budget, [&](mng::block_manager& bm) {
    containers::stack<T, block_bytes> s(budget, bm);
    against_reference<T, decltype(s), std::stack<std::uint64_t>> check(s, 17);
    // Phases: grow a lot, alternate around block boundaries, shrink to empty, regrow.
    check.run(6 * TestFixture::B, 100);
    check.run(4 * TestFixture::B, 50);
    check.run(3 * TestFixture::B, 30);
    ASSERT_NO_FATAL_FAILURE(check.drain());
    EXPECT_THROW(s.pop(), std::out_of_range);
    check.run(2 * TestFixture::B + 1, 100); // leaves blocks on disk: the destructor frees them
  });
}

TYPED_TEST(Containers, QueueMatchesStdDequeUnderRandomOperations) {
  using T = TypeParam;
  const std::size_t budget = 5 * block_bytes;
  on_each_disk(budget, [&](mng::block_manager& bm) {
    containers::queue<T, block_bytes> q(budget, bm);
    against_reference<T, decltype(q), std::queue<std::uint64_t>> check(q, 23);
    check.run(TestFixture::B - 1, 100); // fits in memory
    check.run(TestFixture::B, 50);
    check.run(6 * TestFixture::B, 80); // grows onto disk
    check.run(4 * TestFixture::B, 50);
    ASSERT_NO_FATAL_FAILURE(check.drain());
    EXPECT_THROW(q.front(), std::out_of_range);
    check.run(3 * TestFixture::B, 100);
  });
}

TEST(Containers, BudgetsBelowTheMinimumAreRefusedWithTheNumbers) {
  mng::block_manager bm(test::memory_config());
  try {
    containers::vector<int> v(4096, 4096, bm);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("8192"), std::string::npos) << e.what();
  }
  EXPECT_THROW((containers::stack<int, 4096>(2 * 4096, bm)), std::invalid_argument);
  EXPECT_THROW((containers::queue<int, 4096>(2 * 4096, bm)), std::invalid_argument);
}

TEST(Containers, VectorScansMayOverlap) {
  // merge(v, v) in a script reads one vector twice at once.
  mng::block_manager bm(test::memory_config());
  containers::vector<int> v(2 * 4096, 4096, bm);
  for (int i = 0; i < 5000; ++i) v.push_back(i);
  auto a = v.scan();
  auto b = v.scan();
  std::vector<int> from_a, from_b; // a reads two elements for each of b's
  while (!a.empty() || !b.empty()) {
    for (int k = 0; k < 2 && !a.empty(); ++k, ++a) from_a.push_back(*a);
    if (!b.empty()) {
      from_b.push_back(*b);
      ++b;
    }
  }
  std::vector<int> all(5000);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(from_a, all);
  EXPECT_EQ(from_b, all);
  EXPECT_THROW(v.push_back(1), std::logic_error);
}

TEST(Containers, VectorIsReadOnlyWhileScanned) {
  mng::block_manager bm(test::memory_config());
  containers::vector<int> v(2 * 4096, 4096, bm);
  for (int i = 0; i < 5000; ++i) v.push_back(i);
  {
    auto r = v.scan();
    EXPECT_THROW(v.push_back(1), std::logic_error);
    EXPECT_THROW(v.get(0), std::logic_error);
  }
  EXPECT_EQ(v.get(4999), 4999);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(Containers, VectorRandomAccessAgainstStdVector) {
  const std::size_t budget = 4 * 4096;
  on_each_disk(budget, [&](mng::block_manager& bm) {
    containers::vector<std::uint64_t> v(budget, 4096, bm);
    std::vector<std::uint64_t> ref;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 20000; ++i) {
      const auto op = rng() % 10;
      if (op < 4 || ref.empty()) {
        v.push_back(rng());
        ref.push_back(v.back());
      } else if (op < 7) {
        const auto k = rng() % ref.size();
        ASSERT_EQ(v.get(k), ref[k]);
      } else {
        const auto k = rng() % ref.size();
        const auto x = rng();
        v.set(k, x);
        ref[k] = x;
      }
    }
    v.flush();
    std::size_t i = 0;
    for (auto r = v.scan(); !r.empty(); ++r) ASSERT_EQ(*r, ref[i++]);
    EXPECT_EQ(i, ref.size());
  });
}
