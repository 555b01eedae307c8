// The str of generated programs against std::string as the reference: order and equality
// as memcmp's (embedded zero bytes, 0xFF bytes, prefixes), the sort sentinel, hashing,
// every helper and its errors, words() and split() against Python's rules, and files of
// lines (line_reader, line_writer).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "flow/excerpt.hpp"
#include "flow/io/error.hpp"
#include "flow/script/str.hpp"
#include "flow/script/text_files.hpp"
#include "flow/script/total_order.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::script;

namespace {

using s30 = str<30>;

s30 S(std::string_view v) { return s30::from(v, "t.flow:1"); }

/// The message of the script_error that `f` throws ("" if none).
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const script_error& e) {
    return e.what();
  }
  return "";
}

/// Random strings of up to `max` bytes from a small alphabet (so that equal strings,
/// prefixes and long common prefixes are frequent), with '\0' and 0xFF among the bytes.
std::string random_string(std::mt19937_64& rng, std::size_t max) {
  static const char alphabet[] = {'\0', 'a', 'b', ' ', ',', '\x7f', '\x80', '\xff', 'Z', '9'};
  const std::size_t n = rng() % (max + 1);
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += alphabet[rng() % (rng() % 2 ? 3 : sizeof alphabet)];
  return s;
}

int sign(int c) { return (c > 0) - (c < 0); }
int sign(std::strong_ordering o) { return o < 0 ? -1 : o > 0 ? 1 : 0; }

/// Python's s.split(sep) for a non-empty sep.
std::vector<std::string> python_split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t at = s.find(sep, pos);
    if (at == std::string::npos) break;
    out.push_back(s.substr(pos, at - pos));
    pos = at + sep.size();
  }
  out.push_back(s.substr(pos));
  return out;
}
/// The maximal runs of ASCII letters and digits and non-ASCII bytes.
std::vector<std::string> reference_words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    const unsigned char b = static_cast<unsigned char>(c);
    if (std::isalnum(b) && b < 0x80) cur += c;
    else if (b >= 0x80) cur += c;
    else if (!cur.empty()) out.push_back(cur), cur.clear();
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}
template <class Range> std::vector<std::string> strings_of(const Range& r) {
  std::vector<std::string> out;
  for (const auto& x : r) out.emplace_back(x.view());
  return out;
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
/// The lines line_reader<Str> gives for `path`, and its error message in `error`.
template <class Str> std::vector<std::string> read_lines(const std::string& path, std::string* error) {
  std::vector<std::string> got;
  try {
    line_reader<Str> in(path);
    for (; !in.empty(); ++in) got.emplace_back((*in).view());
  } catch (const file_format_error& e) {
    *error = e.what();
  }
  return got;
}

} // namespace

TEST(StrLayout, IsCapacityPlusTwoBytesTriviallyCopyableAndZeroPastTheLength) {
  EXPECT_EQ(sizeof(str<254>), 256u);
  EXPECT_EQ(sizeof(str<2>), 4u);
  EXPECT_TRUE(std::is_trivially_copyable_v<str<254>>);
  EXPECT_EQ(str<254>::capacity, 254u);
  const str<254> empty;
  unsigned char zero[sizeof(str<254>)] = {};
  EXPECT_EQ(std::memcmp(&empty, zero, sizeof zero), 0) << "the empty string is all zero bytes";
  // Every way to make a string leaves the bytes past its length zero.
  const s30 parts[] = {S("hello world"), slice(S("hello world"), 1, 3, ""), trim(S("  x  ")),
                       concat(S("ab"), S("c"), ""), lower(S("ABC")), *words(S("  ab  ")).begin()};
  for (const s30& p : parts) {
    const char* bytes = reinterpret_cast<const char*>(&p);
    for (std::size_t i = p.size(); i < 30; ++i) EXPECT_EQ(bytes[i], '\0') << p.view() << " byte " << i;
  }
}

TEST(StrFrom, KeepsTheBytesAndRejectsMoreThanTheCapacity) {
  const std::string full(30, 'x');
  EXPECT_EQ(S(full).view(), full);
  EXPECT_EQ(S(std::string("a\0b", 3)).size(), 3u);
  EXPECT_EQ(S("").size(), 0u);
  EXPECT_TRUE(S("").empty());
  EXPECT_EQ(error_of([] { str<254>::from(std::string(300, 'a'), "x.flow:7:3"); }),
            "x.flow:7:3: a string of 300 bytes is longer than the 254 bytes a str holds (it starts '" +
                std::string(40, 'a') + "…'); compile with flowc --max-str BYTES for longer strings");
  EXPECT_EQ(error_of([] { S(std::string(31, 'x')); }),
            "t.flow:1: a string of 31 bytes is longer than the 30 bytes a str holds (it starts '" +
                std::string(31, 'x').substr(0, 40) +
                "'); compile with flowc --max-str BYTES for longer strings");
}

TEST(StrOrder, ComparesLikeStdStringBytewise) {
  std::mt19937_64 rng(42);
  std::vector<std::string> values = {"", std::string(1, '\0'), std::string(2, '\0'), "a", std::string("a\0", 2),
                                     "ab", "b", std::string(30, '\xff'), std::string(29, '\xff'), "\x80", "\x7f"};
  for (int i = 0; i < 300; ++i) values.push_back(random_string(rng, 30));
  for (const std::string& a : values) {
    for (const std::string& b : values) {
      const s30 x = S(a), y = S(b);
      ASSERT_EQ(sign(x <=> y), sign(a.compare(b))) << excerpt(a) << " vs " << excerpt(b);
      ASSERT_EQ(x == y, a == b);
      ASSERT_EQ(x < y, a < b);
      if (x == y) {
        ASSERT_EQ(hash(x), hash(y));
      }
      ASSERT_EQ(total_less(x, y), a < b);
      ASSERT_EQ(total_equal(x, y), a == b);
    }
  }
}

TEST(StrOrder, TheSentinelIsAboveEveryStringAndNumericLimitsNameTheBounds) {
  using limits = std::numeric_limits<s30>;
  static_assert(limits::is_specialized);
  const s30 top = limits::max();
  EXPECT_EQ(top, s30::max_sentinel());
  EXPECT_EQ(top <=> s30::max_sentinel(), std::strong_ordering::equal);
  EXPECT_EQ(limits::lowest(), S(""));
  EXPECT_EQ(limits::min(), S(""));
  std::mt19937_64 rng(7);
  std::vector<std::string> values = {"", std::string(30, '\xff'), std::string(29, '\xff'), std::string(30, '\0')};
  for (int i = 0; i < 200; ++i) values.push_back(random_string(rng, 30));
  for (const std::string& v : values) {
    EXPECT_LT(S(v), top) << excerpt(v);
    EXPECT_GT(top, S(v)) << excerpt(v);
    EXPECT_NE(S(v), top) << excerpt(v);
    EXPECT_LE(limits::lowest(), S(v)) << excerpt(v);
  }
  EXPECT_EQ(top.size(), 30u) << "the sentinel's view stays inside its bytes";
  EXPECT_EQ(total_highest<s30>(), top);
  EXPECT_EQ(total_lowest<s30>(), S(""));
  constexpr s30 at_compile_time = std::numeric_limits<s30>::max(); // a constant, as generated code may need
  EXPECT_EQ(at_compile_time, top);
}

TEST(StrOrder, SortsLikeStdStrings) {
  std::mt19937_64 rng(3);
  const auto check = [](const std::vector<std::string>& input) {
    std::vector<s30> got;
    for (const std::string& v : input) got.push_back(S(v));
    std::vector<std::string> expected = input;
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    std::vector<std::string> back;
    for (const s30& s : got) back.emplace_back(s.view());
    EXPECT_EQ(back, expected);
  };
  std::vector<std::string> random, prefixed, equal(500, std::string("same\0same", 9));
  for (int i = 0; i < 2000; ++i) random.push_back(random_string(rng, 30));
  for (int i = 0; i < 2000; ++i) prefixed.push_back(std::string(25, 'p') + random_string(rng, 5));
  check(random);
  check(prefixed);
  check(equal);
  for (int i = 0; i < 100; ++i) prefixed.push_back(std::string(25, 'p')); // duplicates of the common prefix
  check(prefixed);
}

TEST(StrHash, HashesTheBytesAndTheLengthAndIsTheOverloadHashPicks) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 500; ++i) {
    const std::string v = random_string(rng, 30);
    const s30 s = S(v);
    EXPECT_EQ(hash(s), hash_str(s)) << "overload resolution picks str's hash";
    EXPECT_EQ(total_hash(s), hash_str(s));
    EXPECT_EQ(hash_str(s), hash_str(S(v))) << "equal values hash alike";
  }
  // The generic hash of all bytes (named explicitly: hash<T> cannot be str's overload) differs.
  EXPECT_NE(hash<s30>(S("abc")), hash_str(S("abc")));
  EXPECT_NE(hash_str(S("a")), hash_str(S(std::string("a\0", 2)))) << "the length counts";
  EXPECT_NE(hash_str(S("")), hash_str(S(std::string(1, '\0'))));
  EXPECT_NE(hash_str(S("abcdefgh")), hash_str(S("abcdefgi")));
  EXPECT_NE(hash_str(s30::max_sentinel()), hash_str(S(std::string(30, '\xff'))));
}

TEST(StrShow, PrintsTheBytesAndConvertsScalars) {
  EXPECT_EQ(show(S("a b\tc")), "a b\tc");
  EXPECT_EQ(show(S(std::string("a\0b", 3))), std::string("a\0b", 3));
  EXPECT_EQ((format_str<30>("", std::uint8_t{200})).view(), "200");
  EXPECT_EQ((format_str<30>("", std::int64_t{-42})).view(), "-42");
  EXPECT_EQ((format_str<30>("", true)).view(), "true");
  EXPECT_EQ((format_str<30>("", 2.5)).view(), "2.5");
  EXPECT_EQ((format_str<30>("", 0.1f)).view(), "0.1");
  EXPECT_EQ((format_str<30>("", S("x y"))).view(), "x y");
  EXPECT_EQ(error_of([] { format_str<4>("p.flow:2", std::uint64_t{123456}); }),
            "p.flow:2: a string of 6 bytes is longer than the 4 bytes a str holds (it starts '123456'); "
            "compile with flowc --max-str BYTES for longer strings");
}

// "{a}, {b}" is format_str of its pieces: what show() gives each, joined, up to exactly
// the capacity (zero bytes past the length, as every str has), and one byte more is the
// error that names the whole text's length.
TEST(StrFormat, IsTheShownPiecesJoinedUpToTheCapacity) {
  const std::uint64_t big = 1'234'567'890'123'456ULL; // 16 digits: longer than std::string's own buffer
  const auto s = format_str<60>("", "n=", big, ", x=", -2.25, ", ok=", false, ", s=", S("ab"));
  EXPECT_EQ(s.view(), "n=" + show(big) + ", x=" + show(-2.25) + ", ok=false, s=ab");
  const auto whole = format_str<16>("", big);
  EXPECT_EQ(whole.view(), "1234567890123456");
  const auto nan = format_str<16>("", std::numeric_limits<double>::quiet_NaN(), " ",
                                  -std::numeric_limits<float>::infinity());
  EXPECT_EQ(nan.view(), show(std::numeric_limits<double>::quiet_NaN()) + " " +
                            show(-std::numeric_limits<float>::infinity()));
  const auto part = format_str<8>("", "ab", std::uint8_t{7});
  EXPECT_EQ(part.view(), "ab7");
  EXPECT_EQ(part, str<8>::from("ab7", "")); // the same bytes past the length: zero
  EXPECT_EQ(hash(part), hash(str<8>::from("ab7", "")));
  EXPECT_EQ((format_str<8>("", "")).view(), "");
  EXPECT_EQ(error_of([] { format_str<8>("p.flow:3", "abcdef", std::int16_t{-100}); }),
            "p.flow:3: a string of 10 bytes is longer than the 8 bytes a str holds (it starts 'abcdef-100'); "
            "compile with flowc --max-str BYTES for longer strings");
  EXPECT_EQ(error_of([] { format_str<8>("p.flow:4", "abcdefgh", S("x")); }),
            "p.flow:4: a string of 9 bytes is longer than the 8 bytes a str holds (it starts 'abcdefghx'); "
            "compile with flowc --max-str BYTES for longer strings");
}

TEST(StrOps, ConcatAtAndSliceCheckTheirBounds) {
  EXPECT_EQ(concat(S("ab"), S("cd"), "").view(), "abcd");
  EXPECT_EQ(concat(S(""), S(""), "").view(), "");
  EXPECT_EQ(concat(S(std::string(15, 'a')), S(std::string(15, 'b')), "").view(),
            std::string(15, 'a') + std::string(15, 'b'));
  EXPECT_EQ(error_of([] { concat(S(std::string(20, 'a')), S(std::string(11, 'b')), "c.flow:4"); }),
            "c.flow:4: a string of 31 bytes is longer than the 30 bytes a str holds (it starts '" +
                std::string(20, 'a') + "'); compile with flowc --max-str BYTES for longer strings");

  EXPECT_EQ(at(S("a\xff"), 0, ""), 'a');
  EXPECT_EQ(at(S("a\xff"), 1, ""), 0xff);
  EXPECT_EQ(error_of([] { at(S("abc"), 3, "i.flow:1"); }), "i.flow:1: index 3 is out of range for a string of 3 bytes");
  EXPECT_EQ(error_of([] { at(S(""), 0, "i.flow:1"); }), "i.flow:1: index 0 is out of range for a string of 0 bytes");

  EXPECT_EQ(slice(S("hello"), 1, 4, "").view(), "ell");
  EXPECT_EQ(slice(S("hello"), 0, 5, "").view(), "hello");
  EXPECT_EQ(slice(S("hello"), 5, 5, "").view(), "");
  EXPECT_EQ(slice(S("hello"), 2, 2, "").view(), "");
  EXPECT_EQ(error_of([] { slice(S("hello"), 2, 6, "s.flow:9"); }),
            "s.flow:9: slice [2, 6) is out of range for a string of 5 bytes");
  EXPECT_EQ(error_of([] { slice(S("hello"), 3, 2, "s.flow:9"); }),
            "s.flow:9: slice [3, 2) is out of range for a string of 5 bytes (its start is after its end)");
}

TEST(StrOps, FindStartsWithEndsWithAndContainsMatchStdString) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) {
    const std::string a = random_string(rng, 12), b = random_string(rng, 3);
    const std::size_t at = a.find(b);
    ASSERT_EQ(find(S(a), S(b)), at == std::string::npos ? -1 : static_cast<std::int64_t>(at));
    ASSERT_EQ(starts_with(S(a), S(b)), a.starts_with(b));
    ASSERT_EQ(ends_with(S(a), S(b)), a.ends_with(b));
    ASSERT_EQ(contains(S(a), S(b)), at != std::string::npos);
  }
  EXPECT_EQ(find(S("abc"), S("")), 0);
  EXPECT_EQ(find(S(""), S("a")), -1);
  EXPECT_TRUE(contains(S(""), S("")));
}

TEST(StrOps, LowerUpperAndTrimTouchOnlyAscii) {
  EXPECT_EQ(lower(S("Hello, WORLD 9 Ä")).view(), "hello, world 9 Ä");
  EXPECT_EQ(upper(S("Hello, world 9 ä")).view(), "HELLO, WORLD 9 ä");
  EXPECT_EQ(lower(S("@[`{")).view(), "@[`{") << "the neighbours of the letters stay";
  EXPECT_EQ(upper(S("@[`{")).view(), "@[`{");
  EXPECT_EQ(trim(S(" \t\r\n\v\fa b\t \n")).view(), "a b");
  EXPECT_EQ(trim(S("   ")).view(), "");
  EXPECT_EQ(trim(S("")).view(), "");
  EXPECT_EQ(trim(S(std::string("\0a\0", 3))).view(), std::string("\0a\0", 3)) << "'\\0' is no white space";
  EXPECT_EQ(trim(S("\xc2\xa0x\xc2\xa0")).view(), "\xc2\xa0x\xc2\xa0") << "nor is a non-ASCII space";
}

TEST(StrWords, AreRunsOfLettersDigitsAndNonAsciiBytes) {
  EXPECT_EQ(strings_of(words(S("Hi, you! 42x  größe_东京"))),
            (std::vector<std::string>{"Hi", "you", "42x", "größe", "东京"}));
  EXPECT_EQ(strings_of(words(S(""))), std::vector<std::string>{});
  EXPECT_EQ(strings_of(words(S(" ,.! "))), std::vector<std::string>{});
  EXPECT_EQ(strings_of(words(S("one"))), std::vector<std::string>{"one"});
  EXPECT_EQ(strings_of(words(S(std::string(30, 'w')))), std::vector<std::string>{std::string(30, 'w')});
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const std::string v = random_string(rng, 30);
    ASSERT_EQ(strings_of(words(S(v))), reference_words(v)) << excerpt(v);
  }
  // The range holds its string: a loop over the words of a temporary is safe.
  std::vector<std::string> got;
  for (const auto& w : words(concat(S("ab cd"), S(" ef"), ""))) got.emplace_back(w.view());
  EXPECT_EQ(got, (std::vector<std::string>{"ab", "cd", "ef"}));
  using word_range = decltype(words(str<30>{}));
  static_assert(std::input_iterator<word_range::iterator>);
  static_assert(std::sentinel_for<word_range::sentinel, word_range::iterator>);
}

TEST(StrSplit, IsPythonsSplitWithASeparator) {
  const auto split_of = [](std::string_view s, std::string_view sep) {
    return strings_of(split(S(s), S(sep), ""));
  };
  EXPECT_EQ(split_of("a,,b", ","), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_of("", ","), (std::vector<std::string>{""}));
  EXPECT_EQ(split_of(",", ","), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(split_of("a,b,", ","), (std::vector<std::string>{"a", "b", ""}));
  EXPECT_EQ(split_of("a::b:c", "::"), (std::vector<std::string>{"a", "b:c"}));
  EXPECT_EQ(split_of("aaa", "aa"), (std::vector<std::string>{"", "a"}));
  EXPECT_EQ(split_of("abc", "abcd"), (std::vector<std::string>{"abc"}));
  std::mt19937_64 rng(13);
  for (int i = 0; i < 3000; ++i) {
    const std::string v = random_string(rng, 30);
    std::string sep = random_string(rng, 2);
    if (sep.empty()) sep = ",";
    ASSERT_EQ(split_of(v, sep), python_split(v, sep)) << excerpt(v) << " by " << excerpt(sep);
  }
  EXPECT_EQ(error_of([] { split(S("abc"), S(""), "q.flow:5"); }), "q.flow:5: split's separator is the empty string");
}

TEST(StrParse, ReadsNumbersAsTextFieldsAreRead) {
  EXPECT_EQ(parse_u64(S("18446744073709551615"), ""), UINT64_MAX);
  EXPECT_EQ(parse_u64(S("+007"), ""), 7u);
  EXPECT_EQ(parse_i64(S("-9223372036854775808"), ""), INT64_MIN);
  EXPECT_EQ(parse_f64(S("-2.5e3"), ""), -2500.0);
  EXPECT_TRUE(std::isinf(parse_f64(S("inf"), "")));
  EXPECT_EQ(error_of([] { parse_u64(S("12x"), "n.flow:3"); }),
            "n.flow:3: cannot parse '12x' as u64: '12x' is not a u64 (write decimal digits, optionally after +)");
  EXPECT_EQ(error_of([] { parse_u64(S("-1"), "n.flow:3"); }),
            "n.flow:3: cannot parse '-1' as u64: '-1' is negative, but u64 holds 0 to 18446744073709551615");
  EXPECT_EQ(error_of([] { parse_i64(S(" 1"), "n.flow:3"); }),
            "n.flow:3: cannot parse ' 1' as i64: ' 1' is not an i64 (write decimal digits, optionally after + or -)");
  EXPECT_EQ(error_of([] { parse_f64(S(""), "n.flow:3"); }),
            "n.flow:3: cannot parse '' as f64: '' is not an f64 (write a decimal number such as 1, -2.5 or 1e-3, or "
            "inf or nan)");
  EXPECT_EQ(error_of([] { parse_i64(S("\x1b[2J"), "n.flow:3"); }).substr(0, 37),
            "n.flow:3: cannot parse '\\x1b[2J' as i");
  EXPECT_EQ(try_parse_u64(S("12"), 5), 12u);
  EXPECT_EQ(try_parse_u64(S("12x"), 5), 5u);
  EXPECT_EQ(try_parse_u64(S("99999999999999999999"), 5), 5u);
  EXPECT_EQ(try_parse_i64(S("-3"), 5), -3);
  EXPECT_EQ(try_parse_i64(S(""), -1), -1);
  EXPECT_EQ(try_parse_f64(S(".5"), 1.0), 0.5);
  EXPECT_EQ(try_parse_f64(S("1e999"), 1.0), 1.0);
}

TEST(StrTextScalars, AStrIsAFieldOfATextFile) {
  EXPECT_EQ(scalar_type_name<str<254>>(), "str");
  str<4> x;
  EXPECT_EQ(parse_scalar("abcd", x), "");
  EXPECT_EQ(x.view(), "abcd");
  EXPECT_EQ(parse_scalar("abcde", x),
            "a field of 5 bytes is longer than the 4 bytes a str holds (it starts 'abcde'); compile with flowc "
            "--max-str BYTES for longer strings");
  EXPECT_EQ(x.view(), "abcd") << "unchanged on error";
  std::string out = "<";
  append_scalar(out, str<4>::from("ab", ""));
  EXPECT_EQ(out, "<ab");
  // A field is a word: a str with white space or an empty one would not read back.
  for (const char* bad : {"a\tb", "a b", "ab\r", "\n", ""}) {
    try {
      append_scalar(out, str<4>::from(bad, ""));
      ADD_FAILURE() << "wrote '" << bad << "'";
    } catch (const text_field_error& e) {
      EXPECT_NE(std::string(e.what()).find(*bad ? "holds white space" : "an empty str is no field"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(out, "<ab") << "nothing appended";
  EXPECT_EQ(unwritable_text_field("a b"), "the str 'a b' holds white space (read_text would read it as several fields)");

  // A record { n: u32, name: str } read by text_fields, as a generated Fields reads it;
  // its reader names the file and the line in messages.
  std::uint32_t n = 0;
  s30 name;
  test::scratch_dir dir;
  const std::string file = dir.file("r.txt");
  std::ofstream(file) << "  12 \t alpha  \n\n\n\n\n\n1 " << std::string(31, 'x') << "\n";
  text_line_reader lines(file);
  std::string_view line;
  ASSERT_TRUE(lines.next(line));
  text_fields f(line, lines, 2, "R");
  f.read(n, "n");
  f.read(name, "name");
  f.end();
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(name.view(), "alpha");
  for (int i = 2; i <= 7; ++i) ASSERT_TRUE(lines.next(line));
  try {
    text_fields g(line, lines, 2, "R");
    g.read(n, "n");
    g.read(name, "name");
    ADD_FAILURE() << "a field over the capacity was read";
  } catch (const file_format_error& e) {
    EXPECT_EQ(std::string(e.what()).find(file + ":7: field 2 (name: str): a field of 31 bytes is longer than the 30"),
              0u)
        << e.what();
  }
}

TEST(LineReader, ReadsEveryLineWithoutItsNewlineOrCarriageReturn) {
  test::scratch_dir dir;
  const std::string path = dir.file("l.txt");
  std::string error;
  const auto lines = [&](const std::string& data) {
    write_file(path, data);
    error.clear();
    return read_lines<s30>(path, &error);
  };
  using v = std::vector<std::string>;
  EXPECT_EQ(lines("a b\nc\n"), (v{"a b", "c"}));
  EXPECT_EQ(lines("a b\r\nc\r\n"), (v{"a b", "c"}));
  EXPECT_EQ(lines("a\nlast"), (v{"a", "last"}));
  EXPECT_EQ(lines("a\r\nlast\r"), (v{"a", "last"}));
  EXPECT_EQ(lines("\n\na\n\n"), (v{"", "", "a", ""})) << "blank lines are values";
  EXPECT_EQ(lines("  \t\n"), (v{"  \t"})) << "white space is kept";
  EXPECT_EQ(lines("\r\n"), (v{""}));
  EXPECT_EQ(lines(""), (v{}));
  EXPECT_EQ(lines("a\rb\n"), (v{"a\rb"})) << "only a last '\\r' goes";
  EXPECT_EQ(lines(std::string("\0x\0\n", 4)), (v{std::string("\0x\0", 3)}));
  EXPECT_EQ(error, "");
}

TEST(LineReader, ALineOverTheCapacityIsAnErrorNamingFileLineAndFlag) {
  test::scratch_dir dir;
  const std::string path = dir.file("l.txt");
  std::string error;
  const std::string full(30, 'x');
  write_file(path, "a\n" + full + "\n" + full + "\r\n" + full);
  EXPECT_EQ(read_lines<s30>(path, &error), (std::vector<std::string>{"a", full, full, full}));
  EXPECT_EQ(error, "");

  const std::string message = path + ":3: the line is longer than 30 bytes, the longest a str holds (it starts '" +
                              std::string(30, 'y').substr(0, 40);
  for (const std::string& over : {std::string(31, 'y'), std::string(31, 'y') + "\r", std::string(32, 'y'),
                                  std::string(100'000, 'y')}) {
    write_file(path, "a\nb\n" + over + "\nc\n");
    error.clear();
    EXPECT_EQ(read_lines<s30>(path, &error), (std::vector<std::string>{"a", "b"})) << over.size();
    EXPECT_EQ(error.substr(0, message.size()), message) << over.size();
    EXPECT_NE(error.find("); compile with flowc --max-str BYTES for longer lines"), std::string::npos) << error;
  }
  write_file(path, std::string(31, 'z')); // the last line, without a newline
  error.clear();
  EXPECT_EQ(read_lines<s30>(path, &error), std::vector<std::string>{});
  EXPECT_EQ(error.substr(0, path.size() + 3), path + ":1:");
}

TEST(LineReader, ReadsManyLinesAcrossBuffers) {
  test::scratch_dir dir;
  const std::string path = dir.file("l.txt");
  std::mt19937_64 rng(17);
  std::vector<std::string> expected;
  std::string data;
  for (int i = 0; i < 20'000; ++i) {
    std::string v = random_string(rng, 30);
    std::replace(v.begin(), v.end(), '\0', '\n'); // some lines break in two, some are empty
    data += v + (i % 2 ? "\r\n" : "\n");
  }
  write_file(path, data);
  for (std::size_t pos = 0; pos < data.size();) {
    const std::size_t nl = data.find('\n', pos);
    std::string line = data.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    expected.push_back(line);
    pos = nl + 1;
  }
  std::string error;
  EXPECT_EQ(read_lines<s30>(path, &error), expected);
  EXPECT_EQ(error, "");
}

TEST(LineWriter, WritesLinesThatReadBack) {
  test::scratch_dir dir;
  const std::string path = dir.file("out.txt");
  std::mt19937_64 rng(23);
  std::vector<std::string> values = {"", "first", "", std::string(30, '\xff'), std::string("\0a", 2)};
  for (int i = 0; i < 30'000; ++i) {
    std::string v = random_string(rng, 30);
    std::replace(v.begin(), v.end(), '\0', 'z');
    values.push_back(v);
  }
  {
    line_writer<s30> w(path);
    for (const std::string& v : values) w.push(S(v));
    w.finish();
  }
  EXPECT_EQ(read_file(path).substr(0, 9), "\nfirst\n\n\xff");
  std::string error;
  EXPECT_EQ(read_lines<s30>(path, &error), values);
  EXPECT_EQ(error, "");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"out.txt"});
}
