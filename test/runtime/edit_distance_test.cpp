// flow::edit_distance, the distance behind every "did you mean" hint (flowc's commands,
// options, --set params and a script's names; a program's flags): a typo of one
// character, or of two neighbours swapped, is one edit.
#include "flow/edit_distance.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

TEST(EditDistance, CountsInsertionsDeletionsReplacementsAndSwaps) {
  EXPECT_EQ(flow::edit_distance("", ""), 0u);
  EXPECT_EQ(flow::edit_distance("", "abc"), 3u);
  EXPECT_EQ(flow::edit_distance("abc", ""), 3u);
  EXPECT_EQ(flow::edit_distance("build", "build"), 0u);
  EXPECT_EQ(flow::edit_distance("biuld", "build"), 1u);   // two neighbours swapped
  EXPECT_EQ(flow::edit_distance("fitler", "filter"), 1u);
  EXPECT_EQ(flow::edit_distance("grpah", "graph"), 1u);
  EXPECT_EQ(flow::edit_distance("explan", "explain"), 1u); // one left out
  EXPECT_EQ(flow::edit_distance("memroy", "memory"), 1u);
  EXPECT_EQ(flow::edit_distance("order", "orders"), 1u);
  EXPECT_EQ(flow::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(flow::edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(flow::edit_distance("abc", "ca"), 3u); // a swap is of neighbours, edited no further
  EXPECT_EQ(flow::edit_distance("run", "frobnicate"), flow::edit_distance("frobnicate", "run"));
}

TEST(EditDistance, NearestNameIsTheOneRuleOfEveryHint) {
  const std::vector<std::string> commands = {"check", "explain", "emit", "build", "run"};
  EXPECT_EQ(flow::nearest_name("biuld", commands), "build");
  EXPECT_EQ(flow::nearest_name("explan", commands), "explain");
  EXPECT_EQ(flow::nearest_name("rnu", commands), "run");    // a short name: one edit
  EXPECT_EQ(flow::nearest_name("rx", commands), "");        // two edits from run: too far for two letters
  EXPECT_EQ(flow::nearest_name("frobnicate", commands), "");
  EXPECT_EQ(flow::nearest_name("build", commands), "");     // itself is no hint
  const char* const stages[] = {"map", "filter", "sort"};
  EXPECT_EQ(flow::nearest_name("fitler", stages), "filter");
  EXPECT_EQ(flow::nearest_name("mpa", stages), "map");
  EXPECT_TRUE(flow::near_name("memroy", "memory"));
  EXPECT_FALSE(flow::near_name("mem", "memory"));
}
