// Loser tree: k-way merging of random sequences against std::sort, stability, exhausted
// players, keys equal to the type's maximum, k = 0..70.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/loser_tree.hpp"

namespace {

using flow::algo::loser_tree;

std::vector<std::uint32_t> merge_all(const std::vector<std::vector<std::uint32_t>>& seqs) {
  loser_tree<std::uint32_t> lt(seqs.size());
  std::vector<std::size_t> pos(seqs.size(), 0);
  for (std::size_t i = 0; i < seqs.size(); ++i)
    if (!seqs[i].empty()) lt.set(i, seqs[i][0]);
  lt.build();
  std::vector<std::uint32_t> out;
  while (!lt.empty()) {
    const std::size_t w = lt.winner();
    EXPECT_EQ(lt.winner_key(), seqs[w][pos[w]]);
    out.push_back(lt.winner_key());
    if (++pos[w] == seqs[w].size()) {
      lt.remove_winner();
    } else {
      lt.replace_winner(seqs[w][pos[w]]);
    }
  }
  return out;
}

TEST(SortLoserTree, MergesRandomSequencesForManyFanIns) {
  std::mt19937_64 rng(42);
  for (std::size_t k : {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 70}) {
    for (std::uint32_t range : {3u, 1000u, std::numeric_limits<std::uint32_t>::max()}) {
      std::vector<std::vector<std::uint32_t>> seqs(k);
      std::vector<std::uint32_t> all;
      for (auto& s : seqs) {
        const std::size_t n = rng() % 50; // some are empty
        for (std::size_t j = 0; j < n; ++j) s.push_back(static_cast<std::uint32_t>(rng() % range));
        if (range == std::numeric_limits<std::uint32_t>::max()) s.push_back(range); // max keys
        std::sort(s.begin(), s.end());
        all.insert(all.end(), s.begin(), s.end());
      }
      std::sort(all.begin(), all.end());
      EXPECT_EQ(merge_all(seqs), all) << "k=" << k << " range=" << range;
    }
  }
}

TEST(SortLoserTree, StableVariantBreaksTiesByPlayer) {
  struct item {
    int key;
    int player;
  };
  struct by_key {
    bool operator()(const item& a, const item& b) const { return a.key < b.key; }
  };
  std::mt19937 rng(7);
  const std::size_t k = 13;
  std::vector<std::vector<item>> seqs(k);
  for (std::size_t i = 0; i < k; ++i) {
    for (int j = 0; j < 40; ++j) seqs[i].push_back({static_cast<int>(rng() % 5), static_cast<int>(i)});
    std::stable_sort(seqs[i].begin(), seqs[i].end(), by_key{});
  }
  loser_tree<item, by_key, true> lt(k);
  std::vector<std::size_t> pos(k, 0);
  for (std::size_t i = 0; i < k; ++i) lt.set(i, seqs[i][0]);
  lt.build();
  std::vector<item> out;
  while (!lt.empty()) {
    const std::size_t w = lt.winner();
    out.push_back(lt.winner_key());
    if (++pos[w] == seqs[w].size()) {
      lt.remove_winner();
    } else {
      lt.replace_winner(seqs[w][pos[w]]);
    }
  }
  ASSERT_EQ(out.size(), k * 40);
  for (std::size_t i = 1; i < out.size(); ++i) {
    ASSERT_LE(out[i - 1].key, out[i].key);
    if (out[i - 1].key == out[i].key) {
      ASSERT_LE(out[i - 1].player, out[i].player);
    }
  }
}

TEST(SortLoserTree, ResetReusesTheTree) {
  loser_tree<int> lt(3);
  lt.set(1, 5);
  lt.build();
  EXPECT_FALSE(lt.empty());
  EXPECT_EQ(lt.winner(), 1u);
  lt.remove_winner();
  EXPECT_TRUE(lt.empty());
  lt.reset(0);
  lt.build();
  EXPECT_TRUE(lt.empty());
  lt.reset(1);
  lt.set(0, 9);
  lt.build();
  EXPECT_EQ(lt.winner_key(), 9);
  lt.replace_winner(10);
  EXPECT_EQ(lt.winner_key(), 10);
}

} // namespace
