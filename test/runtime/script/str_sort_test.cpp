// str values through the external sorter, ordered the way generated code orders them (a
// radix key of the first 8 bytes, flow::script::prefix_key, then the full bytewise
// comparison on ties), against std::sort of the same strings as std::string: long common
// prefixes (the key decides nothing), all-equal strings, prefixes of one another, bytes
// 0 and 0xFF, in memory and with several merge passes on disk, ascending and descending.
// Strings longer than 30 bytes are sorted indirectly, and there the order's next key words
// (key_at, key_next: the bytes past the first 8 and the length, as generated code gives
// them) radix
// sort what the first 8 bytes leave tied.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/algo/sorter.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/script/str.hpp"
#include "test_support.hpp"

namespace {

template <std::size_t Cap, bool Descending> struct str_order {
  using S = flow::script::str<Cap>;
  bool operator()(const S& a, const S& b) const { return Descending ? b < a : a < b; }
  static S min_value() { return Descending ? std::numeric_limits<S>::max() : std::numeric_limits<S>::lowest(); }
  static S max_value() { return Descending ? std::numeric_limits<S>::lowest() : std::numeric_limits<S>::max(); }
  using key_type = std::uint64_t;
  static key_type key(const S& s) {
    const std::uint64_t k = flow::script::prefix_key(s);
    return Descending ? ~k : k;
  }
  static constexpr bool key_is_total = false;
  // As flowc writes them: the bytes after the first 8, then the length.
  static constexpr unsigned key_levels = 1 + flow::script::str_key_words<S>(8) + 1;
  static std::uint64_t key_at(const S& s, unsigned level) {
    const std::uint64_t k = level + 1 == key_levels ? flow::script::key_length(s)
                                                    : flow::script::prefix_key_at(s, 8 * level);
    return Descending ? ~k : k;
  }
  static unsigned key_next(const S& s, unsigned level) {
    if (level + 1 < key_levels && level < 1 + flow::script::prefix_words_from(s, 8)) return level;
    return std::max(level, key_levels - 1);
  }
};
static_assert(flow::algo::deep_keyed_order<str_order<62, false>, flow::script::str<62>>);
static_assert(flow::algo::run_sort_traits<flow::script::str<62>, str_order<62, false>>::indirect);

std::vector<std::string> strings(const char* kind, std::size_t n, std::size_t cap) {
  std::mt19937_64 rng(29);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    std::string s;
    if (std::string(kind) == "common prefix") {
      s = "a long common prefix:" + std::to_string(rng() % 100000); // 21 bytes alike, then digits
    } else if (std::string(kind) == "all equal") {
      s = "same";
    } else if (std::string(kind) == "prefixes") {
      s = std::string(rng() % (cap + 1), 'x'); // "", "x", "xx", …: each a prefix of the longer
    } else if (std::string(kind) == "two letters") {
      // Few distinct bytes at every position, lengths 0 to cap: ties at every key word.
      s.resize(rng() % (cap + 1));
      for (char& c : s) c = rng() % 8 ? 'a' : 'b';
    } else {
      s.resize(rng() % (cap + 1));
      for (char& c : s) c = static_cast<char>(std::array<unsigned char, 5>{0, 1, 'a', 0x80, 0xff}[rng() % 5]);
    }
    out.push_back(s);
  }
  return out;
}

template <std::size_t Cap, bool Descending>
void check(const char* kind, std::size_t n, std::size_t memory, std::size_t block, unsigned threads = 2) {
  using S = flow::script::str<Cap>;
  const std::vector<std::string> in = strings(kind, n, Cap);
  flow::mng::block_manager bm(flow::test::memory_config());
  flow::algo::sorter<S, str_order<Cap, Descending>> sorter(
      memory, str_order<Cap, Descending>(), {.block_manager = &bm, .block_bytes = block, .threads = threads});
  for (const std::string& s : in) sorter.push(S::from(s, "test"));
  sorter.finish();
  std::vector<std::string> got;
  for (; !sorter.empty(); ++sorter) got.emplace_back((*sorter).view());
  std::vector<std::string> want = in;
  std::sort(want.begin(), want.end(), [](const std::string& a, const std::string& b) {
    // std::string compares char, which may be signed: compare as unsigned bytes, as str does.
    return Descending ? std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end(),
                                                     [](char x, char y) { return static_cast<unsigned char>(x) < static_cast<unsigned char>(y); })
                      : std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                                     [](char x, char y) { return static_cast<unsigned char>(x) < static_cast<unsigned char>(y); });
  });
  EXPECT_EQ(got, want) << kind << ", " << n << " strings of at most " << Cap << " bytes, memory " << memory
                       << (Descending ? ", descending" : "") << ", threads " << threads;
}

TEST(StrSort, LikeStdStringInMemoryAndOnDisk) {
  for (const char* kind : {"common prefix", "all equal", "prefixes", "two letters", "bytes"}) {
    check<30, false>(kind, 5000, 8 << 20, 64 << 10);    // in memory
    check<30, false>(kind, 60000, 256 << 10, 8 << 10);  // runs on disk, several merge passes
    check<30, true>(kind, 60000, 256 << 10, 8 << 10);
  }
}

TEST(StrSort, LongStringsByTheirNextKeyWords) {
  for (const char* kind : {"common prefix", "all equal", "prefixes", "two letters", "bytes"}) {
    check<62, false>(kind, 5000, 8 << 20, 64 << 10);     // in memory, buckets sorted on one thread
    check<62, true>(kind, 200000, 64 << 20, 64 << 10);   // in memory, the first digits on 2 threads
    check<62, false>(kind, 200000, 64 << 20, 64 << 10, 1);
    check<62, false>(kind, 60000, 512 << 10, 8 << 10);   // runs on disk, several merge passes
  }
}

// The part of the above that runs on two threads (a run's first digits and the key words
// of its large buckets), at a size the suite's ThreadSanitizer run takes in seconds.
TEST(StrSort, NextKeyWordsOnTwoThreads) {
  check<62, false>("two letters", 100000, 64 << 20, 64 << 10);
  check<62, true>("common prefix", 100000, 64 << 20, 64 << 10);
}

} // namespace
