// window, sample and enumerate (flow/stream/sequence.hpp): the push rules against
// references written here, their pull nodes against the push rules, across window sizes
// around the input's length, empty input, and the sample's formula.
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "flow/stream/stream.hpp"

namespace {

namespace fs = flow::stream;

template <std::size_t N> std::vector<std::array<int, N>> windows_by_hand(int n) {
  std::vector<std::array<int, N>> out;
  for (int i = static_cast<int>(N) - 1; i < n; ++i) {
    std::array<int, N> w;
    for (std::size_t k = 0; k < N; ++k) w[k] = i - static_cast<int>(N - 1 - k);
    out.push_back(w);
  }
  return out;
}

template <std::size_t N> void check_windows(int n) {
  SCOPED_TRACE("window " + std::to_string(N) + " of " + std::to_string(n));
  fs::last_n<int, N> pushed;
  std::vector<std::array<int, N>> by_push, by_pull;
  for (int i = 0; i < n; ++i)
    if (pushed.push(i)) by_push.push_back(pushed.last());
  fs::materialize(fs::window<N>(fs::range<int>(0, n)), by_pull);
  EXPECT_EQ(by_push, windows_by_hand<N>(n));
  EXPECT_EQ(by_pull, by_push);
}

TEST(StreamSequence, WindowsOfEverySizeAroundTheInputsLength) {
  for (int n : {0, 1, 2, 3, 4, 5, 100}) {
    check_windows<1>(n);
    check_windows<2>(n);
    check_windows<3>(n);
    check_windows<5>(n);
  }
}

TEST(StreamSequence, WindowOfBools) { // the ring of a std::vector<bool> holds bits
  fs::last_n<bool, 2> w;
  EXPECT_FALSE(w.push(true));
  EXPECT_TRUE(w.push(false));
  EXPECT_EQ(w.last(), (std::array<bool, 2>{true, false}));
}

TEST(StreamSequence, SampleFollowsItsFormula) {
  // sequence.hpp's formula, written out: keep i iff mix(key + i) < fraction * 2^64.
  const std::uint64_t seed = 42, stage = 7;
  const std::uint64_t key = fs::bernoulli_sample::mix(seed ^ fs::bernoulli_sample::mix(stage));
  const double fraction = 0.3;
  fs::bernoulli_sample rule(fraction, seed, stage);
  std::vector<int> by_rule, by_formula, by_pull;
  for (int i = 0; i < 10000; ++i) {
    if (rule.admit()) by_rule.push_back(i);
    if (fs::bernoulli_sample::mix(key + static_cast<std::uint64_t>(i)) < static_cast<std::uint64_t>(fraction * 0x1p64))
      by_formula.push_back(i);
  }
  fs::materialize(fs::sample(fs::range<int>(0, 10000), fs::bernoulli_sample(fraction, seed, stage)), by_pull);
  EXPECT_EQ(by_rule, by_formula);
  EXPECT_EQ(by_pull, by_rule);
  EXPECT_NEAR(static_cast<double>(by_rule.size()), 3000, 150); // 3.3 standard deviations
}

TEST(StreamSequence, SampleOfNoneAndOfAll) {
  EXPECT_EQ(fs::count(fs::sample(fs::range<int>(0, 1000), fs::bernoulli_sample(0, 1, 0))), 0u);
  EXPECT_EQ(fs::count(fs::sample(fs::range<int>(0, 1000), fs::bernoulli_sample(1, 1, 0))), 1000u);
}

TEST(StreamSequence, SamplesOfOtherSeedsOrStagesDiffer) {
  auto kept = [](std::uint64_t seed, std::uint64_t stage) {
    std::vector<int> out;
    fs::materialize(fs::sample(fs::range<int>(0, 1000), fs::bernoulli_sample(0.5, seed, stage)), out);
    return out;
  };
  EXPECT_EQ(kept(1, 3), kept(1, 3));
  EXPECT_NE(kept(1, 3), kept(2, 3));
  EXPECT_NE(kept(1, 3), kept(1, 4));
}

TEST(StreamSequence, EnumerateCountsFromZero) {
  struct indexed {
    std::uint64_t index;
    int value;
    bool operator==(const indexed&) const = default;
  };
  std::vector<indexed> out;
  fs::materialize(fs::enumerate(fs::range<int>(10, 14), [](std::uint64_t i, int x) { return indexed{i, x}; }), out);
  EXPECT_EQ(out, (std::vector<indexed>{{0, 10}, {1, 11}, {2, 12}, {3, 13}}));
  EXPECT_EQ(fs::count(fs::enumerate(fs::range<int>(0, 0), [](std::uint64_t i, int x) { return indexed{i, x}; })), 0u);
}

} // namespace
