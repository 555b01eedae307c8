// The total order of keys (flow/script/total_order.hpp): NaNs of every sign and payload
// above +inf and equal to each other, -0.0 equal to +0.0, and the radix image total_key
// in the same order. The expected ranks are written out by hand here, not computed by
// the code under test.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "flow/script/total_order.hpp"

namespace {

using flow::script::total_equal;
using flow::script::total_hash;
using flow::script::total_key;
using flow::script::total_less;

struct ranked {
  double value;
  int rank; // equal ranks: equal in the total order
};

// Every kind of double, in ascending order of the total order.
std::vector<ranked> doubles() {
  const double inf = std::numeric_limits<double>::infinity();
  const double min_sub = std::numeric_limits<double>::denorm_min();
  return {
      {-inf, 0},
      {-std::numeric_limits<double>::max(), 1},
      {-1.5, 2},
      {-std::numeric_limits<double>::min(), 3},
      {-min_sub, 4},
      {-0.0, 5},
      {0.0, 5},
      {min_sub, 6},
      {std::numeric_limits<double>::min(), 7},
      {1.5, 8},
      {std::numeric_limits<double>::max(), 9},
      {inf, 10},
      {std::numeric_limits<double>::quiet_NaN(), 11},
      {std::bit_cast<double>(std::uint64_t{0xFFF8000000000000}), 11}, // 0.0/0.0 on x86: a negative NaN
      {std::bit_cast<double>(std::uint64_t{0x7FF0000000000001}), 11}, // a signalling NaN's bits
      {std::bit_cast<double>(std::uint64_t{0xFFFFFFFFFFFFFFFF}), 11}, // negative, every payload bit
  };
}

TEST(ScriptTotalOrder, DoublesOrderAndGroupByRank) {
  for (const ranked& a : doubles())
    for (const ranked& b : doubles()) {
      SCOPED_TRACE(testing::Message() << a.value << " (rank " << a.rank << ") vs " << b.value << " (rank " << b.rank
                                      << ")");
      EXPECT_EQ(total_less(a.value, b.value), a.rank < b.rank);
      EXPECT_EQ(total_equal(a.value, b.value), a.rank == b.rank);
      // The radix image orders as the comparator does, and is equal exactly for equal values.
      EXPECT_EQ(total_key(a.value) < total_key(b.value), a.rank < b.rank);
      EXPECT_EQ(total_key(a.value) == total_key(b.value), a.rank == b.rank);
      if (a.rank == b.rank) {
        EXPECT_EQ(total_hash(a.value), total_hash(b.value));
      }
    }
}

TEST(ScriptTotalOrder, FloatsOrderAndGroupByRank) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<float, int>> floats = {
      {-inf, 0}, {-2.0f, 1}, {-std::numeric_limits<float>::denorm_min(), 2}, {-0.0f, 3}, {0.0f, 3},
      {std::numeric_limits<float>::denorm_min(), 4}, {inf, 5}, {std::numeric_limits<float>::quiet_NaN(), 6},
      {std::bit_cast<float>(std::uint32_t{0xFFC00000}), 6}, {std::bit_cast<float>(std::uint32_t{0x7F800001}), 6},
  };
  for (auto [a, ra] : floats)
    for (auto [b, rb] : floats) {
      SCOPED_TRACE(testing::Message() << a << " vs " << b);
      EXPECT_EQ(total_less(a, b), ra < rb);
      EXPECT_EQ(total_equal(a, b), ra == rb);
      static_assert(std::is_same_v<decltype(total_key(a)), std::uint32_t>);
      EXPECT_EQ(total_key(a) < total_key(b), ra < rb);
      EXPECT_EQ(total_key(a) == total_key(b), ra == rb);
    }
}

TEST(ScriptTotalOrder, ArraysCompareElementByElement) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double negative_nan = std::bit_cast<double>(std::uint64_t{0xFFF8000000000000});
  using pair = std::array<double, 2>;
  EXPECT_TRUE(total_equal(pair{nan, -0.0}, pair{negative_nan, 0.0}));
  EXPECT_EQ(total_hash(pair{nan, -0.0}), total_hash(pair{negative_nan, 0.0}));
  EXPECT_TRUE(total_less(pair{nan, 1.0}, pair{negative_nan, 2.0})); // first elements equal
  EXPECT_TRUE(total_less(pair{1e308, nan}, pair{nan, 0.0}));
  EXPECT_FALSE(total_less(pair{nan, nan}, pair{negative_nan, nan}));
  EXPECT_TRUE(total_less(std::array<std::int32_t, 2>{-1, 5}, std::array<std::int32_t, 2>{0, -5}));
}

TEST(ScriptTotalOrder, MinAndMaxDoNotDependOnArgumentOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(flow::script::total_max(nan, 1.0)));
  EXPECT_TRUE(std::isnan(flow::script::total_max(1.0, nan)));
  EXPECT_EQ(flow::script::total_min(nan, 1.0), 1.0);
  EXPECT_EQ(flow::script::total_min(1.0, nan), 1.0);
  EXPECT_EQ(flow::script::total_min(-std::numeric_limits<double>::infinity(), 1.0),
            -std::numeric_limits<double>::infinity());
}

TEST(ScriptTotalOrder, SentinelsBoundEveryValue) {
  for (const ranked& a : doubles()) {
    EXPECT_FALSE(total_less(a.value, flow::script::total_lowest<double>())) << a.value;
    EXPECT_FALSE(total_less(flow::script::total_highest<double>(), a.value)) << a.value;
  }
}

} // namespace
