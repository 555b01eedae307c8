// read_text and write_text in the runtime: every field checked (sign, range, format), lines
// bounded, messages quoting only short escaped excerpts, write errors detected, and every
// byte counted in the I/O statistics.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/excerpt.hpp"
#include "flow/io/error.hpp"
#include "flow/io/stats.hpp"
#include "flow/script/text_files.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::script;

namespace {

/// The reason parse_scalar gives for `field` as a T ("" when it is a T).
template <class T> std::string why(std::string_view field) {
  T x{};
  return parse_scalar(field, x);
}
template <class T> T parsed(std::string_view field) {
  T x{};
  const std::string reason = parse_scalar(field, x);
  EXPECT_EQ(reason, "") << "field '" << field << "'";
  return x;
}

/// Checks a type's bounds: min and max read exactly, one past either end is out of range.
template <class T> void expect_bounds(const std::string& name, const std::string& below, const std::string& above) {
  const std::string min = std::to_string(+std::numeric_limits<T>::min());
  const std::string max = std::to_string(+std::numeric_limits<T>::max());
  EXPECT_EQ(parsed<T>(min), std::numeric_limits<T>::min()) << name;
  EXPECT_EQ(parsed<T>(max), std::numeric_limits<T>::max()) << name;
  EXPECT_EQ(parsed<T>("+" + max), std::numeric_limits<T>::max()) << name;
  EXPECT_EQ(why<T>(above), "'" + above + "' is out of range for " + name + " (" + min + " to " + max + ")");
  if (std::is_signed_v<T>) {
    EXPECT_EQ(why<T>(below), "'" + below + "' is out of range for " + name + " (" + min + " to " + max + ")");
  } else {
    EXPECT_EQ(why<T>(below), "'" + below + "' is negative, but " + name + " holds " + min + " to " + max);
  }
}

// A record { a: u16, b: i32, c: f64 } as the compiler generates its fields.
struct rec {
  std::uint16_t a;
  std::int32_t b;
  double c;
};
struct rec_fields {
  static constexpr std::size_t count = 3;
  static constexpr const char* type_name = "R";
  static void read(text_fields& in, rec& v) {
    in.read(v.a, "a");
    in.read(v.b, "b");
    in.read(v.c, "c");
  }
  static void write(std::string& out, const rec& v) {
    append_scalar(out, v.a);
    out += ' ';
    append_scalar(out, v.b);
    out += ' ';
    append_scalar(out, v.c);
  }
};
struct u64_fields {
  static constexpr std::size_t count = 1;
  static constexpr const char* type_name = "u64";
  static void read(text_fields& in, std::uint64_t& v) { in.read(v, ""); }
  static void write(std::string& out, const std::uint64_t& v) { append_scalar(out, v); }
};

void write_file(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads all of `path` as T; returns the elements, and the error message in `error`.
template <class T, class F> std::vector<T> read_all(const std::string& path, std::string* error,
                                                    std::size_t max_line = text_line_limit) {
  std::vector<T> got;
  try {
    text_reader<T, F> in(path, false, max_line);
    for (; !in.empty(); ++in) got.push_back(*in);
  } catch (const file_format_error& e) {
    *error = e.what();
  }
  return got;
}

/// The bytes read and written from the statistics' disks named `name` since `since`.
io::disk_snapshot counted(const io::stats_snapshot& since, const std::string& name) {
  io::disk_snapshot sum;
  const io::stats_snapshot now = io::stats::instance().snapshot() - since;
  for (const auto& d : now.disks)
    if (d.name == name) sum += d;
  return sum;
}

} // namespace

TEST(Excerpt, KeepsShortPrintableTextAsItIs) {
  EXPECT_EQ(excerpt("12 abc"), "12 abc");
  EXPECT_EQ(excerpt("größe 東京"), "größe 東京") << "UTF-8 stays readable";
}

TEST(Excerpt, EscapesControlBytesTerminalEscapesAndBytesThatAreNotUtf8) {
  EXPECT_EQ(excerpt(std::string("a\0b\tc\x7f", 6)), "a\\x00b\\x09c\\x7f");
  EXPECT_EQ(excerpt("\x1b[2J\x1b]0;title\x07"), "\\x1b[2J\\x1b]0;title\\x07") << "no escape sequence survives";
  EXPECT_EQ(excerpt("\xc2\x9b" "31m"), "\\xc2\\x9b31m") << "the C1 control CSI (U+009B) is escaped";
  EXPECT_EQ(excerpt("\xff\xfe ok \xc3"), "\\xff\\xfe ok \\xc3") << "invalid and cut sequences are bytes";
  EXPECT_EQ(excerpt("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a UTF-16 surrogate is not UTF-8";
  EXPECT_EQ(excerpt("a\\x41"), "a\\\\x41") << "a backslash is doubled, so an escape is never ambiguous";
}

TEST(Excerpt, CutsLongInputAfterFortyCharacters) {
  const std::string line(5'000'000, 'x');
  EXPECT_EQ(excerpt(line), std::string(40, 'x') + "…");
  EXPECT_EQ(excerpt(std::string(40, 'y')), std::string(40, 'y')) << "exactly 40: nothing cut";
  EXPECT_EQ(excerpt(std::string(50, '\x01'), 3), "\\x01\\x01\\x01…") << "an escape counts as one character";
}

TEST(TextScalars, EveryIntegerTypeReadsItsWholeRangeAndNothingMore) {
  expect_bounds<std::uint8_t>("u8", "-1", "256");
  expect_bounds<std::uint16_t>("u16", "-1", "65536");
  expect_bounds<std::uint32_t>("u32", "-4294967295", "4294967296");
  expect_bounds<std::uint64_t>("u64", "-1", "18446744073709551616");
  expect_bounds<std::int8_t>("i8", "-129", "128");
  expect_bounds<std::int16_t>("i16", "-32769", "32768");
  expect_bounds<std::int32_t>("i32", "-2147483649", "2147483648");
  expect_bounds<std::int64_t>("i64", "-9223372036854775809", "9223372036854775808");
  EXPECT_EQ(why<std::uint64_t>("99999999999999999999999999"),
            "'99999999999999999999999999' is out of range for u64 (0 to 18446744073709551615)");
}

TEST(TextScalars, IntegersAreDecimalDigitsAfterAnOptionalSign) {
  EXPECT_EQ(parsed<std::uint32_t>("007"), 7u) << "leading zeros, as before";
  EXPECT_EQ(parsed<std::uint32_t>("+5"), 5u) << "a + sign, as before";
  EXPECT_EQ(parsed<std::int16_t>("-0"), 0);
  EXPECT_EQ(why<std::uint16_t>("-0"), "'-0' is negative, but u16 holds 0 to 65535") << "no minus on unsigned";
  const std::string u32 = " is not a u32 (write decimal digits, optionally after +)";
  for (const char* bad : {"12abc", "0x10", "1_000", "1e3", "1.0", "+", "-", "--1", "+-1", "１"})
    EXPECT_EQ(why<std::uint32_t>(bad), "'" + std::string(bad) + "'" + u32);
  EXPECT_EQ(why<std::int8_t>("5x"), "'5x' is not an i8 (write decimal digits, optionally after + or -)");
}

TEST(TextScalars, FloatsAreDecimalNumbersInfinityOrNan) {
  EXPECT_EQ(parsed<double>("1"), 1.0);
  EXPECT_EQ(parsed<double>("-2.5"), -2.5);
  EXPECT_EQ(parsed<double>(".5"), 0.5);
  EXPECT_EQ(parsed<double>("5."), 5.0);
  EXPECT_EQ(parsed<double>("+6.02E23"), 6.02e23);
  EXPECT_EQ(parsed<float>("1e-3"), 1e-3f);
  EXPECT_EQ(parsed<double>("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(parsed<float>("Infinity"), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(parsed<double>("nan")));
  const std::string f64 = " is not an f64 (write a decimal number such as 1, -2.5 or 1e-3, or inf or nan)";
  for (const char* bad : {"0x1p3", "1e", "e5", ".", "1.5.2", "nan(1)", "1,5", "1e+", "inff", "2.5x"})
    EXPECT_EQ(why<double>(bad), "'" + std::string(bad) + "'" + f64);
  EXPECT_EQ(why<float>("1e39"), "'1e39' is out of range for f32 (its largest magnitude is 3.4028235e+38)");
  EXPECT_EQ(why<double>("-1e309"),
            "'-1e309' is out of range for f64 (its largest magnitude is 1.7976931348623157e+308)");
  EXPECT_EQ(parsed<double>("1e-400"), 0.0) << "too small rounds to zero, like any fraction rounds";
}

TEST(TextScalars, WhatWriteTextWritesReadsBackExactly) {
  for (double x : {0.1, -0.0, 1e300, 5e-324, std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    std::string s;
    append_scalar(s, x);
    EXPECT_EQ(std::signbit(parsed<double>(s)), std::signbit(x)) << s;
    EXPECT_EQ(parsed<double>(s), x) << s;
  }
  std::string s;
  append_scalar(s, std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(parsed<float>(s), std::numeric_limits<float>::denorm_min()) << s;
  s.clear();
  append_scalar(s, std::numeric_limits<std::int8_t>::min());
  EXPECT_EQ(s, "-128");
  EXPECT_EQ(parsed<std::int8_t>(s), -128);
}

TEST(TextScalars, BoolsAreTrueFalseOneOrZero) {
  EXPECT_TRUE(parsed<bool>("true"));
  EXPECT_TRUE(parsed<bool>("1"));
  EXPECT_FALSE(parsed<bool>("false"));
  EXPECT_FALSE(parsed<bool>("0"));
  EXPECT_EQ(why<bool>("TRUE"), "'TRUE' is not a bool (write true, false, 1 or 0)");
  EXPECT_EQ(why<bool>("2"), "'2' is not a bool (write true, false, 1 or 0)");
}

TEST(TextReader, EveryBadLineNamesFileLineFieldAndReason) {
  test::scratch_dir dir;
  const std::string path = dir.file("r.txt");
  struct bad_case {
    std::string line, message;
  };
  const std::string at = path + ":3: ";
  const std::vector<bad_case> cases = {
      {"-1 -1 -1", at + "field 1 (a: u16): '-1' is negative, but u16 holds 0 to 65535"},
      {"65536 0 0", at + "field 1 (a: u16): '65536' is out of range for u16 (0 to 65535)"},
      {"1 2147483648 0", at + "field 2 (b: i32): '2147483648' is out of range for i32 (-2147483648 to 2147483647)"},
      {"1 2x 0", at + "field 2 (b: i32): '2x' is not an i32 (write decimal digits, optionally after + or -)"},
      {"1 2 1e999", at + "field 3 (c: f64): '1e999' is out of range for f64 (its largest magnitude is "
                        "1.7976931348623157e+308)"},
      {"1 2", at + "field 3 (c: f64) is missing: the line has 2 of the 3 fields of R"},
      {"1", at + "field 2 (b: i32) is missing: the line has 1 of the 3 fields of R"},
      {"1 2 3 4 5 ", at + "the line has more than the 3 fields of R: '4 5' follows field 3"},
      {"1 2 3\x1b[31m", at + "field 3 (c: f64): '3\\x1b[31m' is not an f64 (write a decimal number such as 1, "
                             "-2.5 or 1e-3, or inf or nan)"},
  };
  for (const auto& c : cases) {
    write_file(path, "1 2 3\n\n" + c.line + "\n7 8 9\n"); // the blank line 2 still counts
    std::string error;
    const auto got = read_all<rec, rec_fields>(path, &error);
    EXPECT_EQ(error, c.message) << "line '" << c.line << "'";
    EXPECT_EQ(got.size(), 1u) << "the line before the bad one was read, nothing after it";
  }
}

TEST(TextReader, ReadsWhiteSpaceSeparatedFieldsCrLfAndALastLineWithoutNewline) {
  test::scratch_dir dir;
  const std::string path = dir.file("r.txt");
  write_file(path, "1 -2 3.5\r\n  \t\r\n\t4\t+5 \v -inf\f\n65535 -2147483648 1e-3");
  std::string error;
  const auto got = read_all<rec, rec_fields>(path, &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].a, 1);
  EXPECT_EQ(got[0].b, -2);
  EXPECT_EQ(got[0].c, 3.5);
  EXPECT_EQ(got[1].b, 5);
  EXPECT_EQ(got[1].c, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(got[2].a, 65535);
  EXPECT_EQ(got[2].b, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(got[2].c, 1e-3);
}

TEST(TextReader, LinesLongerThanTheBufferAreReadWhole) {
  // Lines longer than the 64 KiB buffer (each a single element, padded with spaces) and
  // many short ones: the buffer moves and grows without losing or splitting a line.
  test::scratch_dir dir;
  const std::string path = dir.file("r.txt");
  std::string data;
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 20; ++i) {
    data += std::string(i % 3 == 0 ? 100'000 + i * 1000 : i, ' ') + std::to_string(i * 1'000'003) + "\n";
    expected.push_back(i * 1'000'003);
  }
  for (std::uint64_t i = 0; i < 30'000; ++i) {
    data += std::to_string(i) + "\n";
    expected.push_back(i);
  }
  write_file(path, data);
  std::string error;
  EXPECT_EQ((read_all<std::uint64_t, u64_fields>(path, &error)), expected);
  EXPECT_EQ(error, "");
}

TEST(TextReader, ALineOverTheLimitIsAnErrorWithoutReadingTheRestOfIt) {
  test::scratch_dir dir;
  const std::string path = dir.file("long.txt");
  std::string data = "1\n2\n" + std::string(1'000'000, '7') + "\x01\n3\n";
  write_file(path, data);
  const io::stats_snapshot before = io::stats::instance().snapshot();
  std::string error;
  const auto got = read_all<std::uint64_t, u64_fields>(path, &error, 100);
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(error, path + ":3: the line is longer than 100 bytes, the longest line read_text takes (it starts '" +
                       std::string(40, '7') + "…'); is this a text file with one element per line?");
  EXPECT_LE(counted(before, path).read_bytes, 101u + 4u) << "the reader stopped at the limit";

  // Lines of exactly the limit are fine, with or without a newline (and leading zeros do
  // not count against a value's range).
  write_file(path, std::string(99, ' ') + "5\n" + std::string(99, '0') + "6");
  error.clear();
  EXPECT_EQ((read_all<std::uint64_t, u64_fields>(path, &error, 100)), (std::vector<std::uint64_t>{5, 6}));
  EXPECT_EQ(error, "");
}

TEST(TextReader, CountsTheBytesItReads) {
  test::scratch_dir dir;
  const std::string path = dir.file("n.txt");
  std::string data;
  for (int i = 0; i < 50'000; ++i) data += std::to_string(i) + "\n";
  write_file(path, data);
  const io::stats_snapshot before = io::stats::instance().snapshot();
  std::string error;
  EXPECT_EQ((read_all<std::uint64_t, u64_fields>(path, &error).size()), 50'000u);
  const io::disk_snapshot c = counted(before, path);
  EXPECT_EQ(c.read_bytes, data.size());
  EXPECT_GE(c.reads, data.size() / text_buffer_bytes);
  EXPECT_EQ(c.write_bytes, 0u);
}

TEST(TextWriter, WritesCountsAndReadsBack) {
  test::scratch_dir dir;
  const std::string path = dir.file("out.txt");
  const io::stats_snapshot before = io::stats::instance().snapshot();
  {
    text_writer<rec, rec_fields> w(path);
    for (int i = 0; i < 20'000; ++i) w.push(rec{static_cast<std::uint16_t>(i), -i, i + 0.25});
    w.finish();
  }
  const std::string text = read_file(path);
  EXPECT_EQ(text.substr(0, 26), "0 0 0.25\n1 -1 1.25\n2 -2 2.");
  EXPECT_EQ(counted(before, path).write_bytes, text.size());
  std::string error;
  const auto back = read_all<rec, rec_fields>(path, &error);
  ASSERT_EQ(back.size(), 20'000u);
  EXPECT_EQ(back[19'999].b, -19'999);
  EXPECT_EQ(back[19'999].c, 19'999.25);
}

TEST(TextWriter, AFullDeviceIsAnErrorNotASilentLoss) {
  if (!test::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  std::string message;
  bool full = false;
  try {
    text_writer<std::uint64_t, u64_fields> w("/dev/full");
    for (std::uint64_t i = 0; i < 10; ++i) w.push(i); // fits the buffer: the error comes at finish
    w.finish();
  } catch (const disk_full_error& e) {
    full = true;
    message = e.what();
  }
  EXPECT_TRUE(full);
  EXPECT_NE(message.find("cannot write to '/dev/full'"), std::string::npos) << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;

  message.clear();
  try {
    text_writer<std::uint64_t, u64_fields> w("/dev/full");
    for (std::uint64_t i = 0; i < 100'000; ++i) w.push(i); // more than the buffer: push fails
    ADD_FAILURE() << "100000 lines written to /dev/full without an error";
  } catch (const disk_full_error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("(offset 0, "), std::string::npos) << message;
}

TEST(TextWriter, AnUnfinishedWriterLeavesTheOldFileAndNothingBeside) {
  // A statement stopped by an error never finishes its writer: the old output stays whole.
  test::scratch_dir dir;
  const std::string path = dir.file("out.txt");
  write_file(path, "old\n");
  {
    text_writer<std::uint64_t, u64_fields> w(path);
    for (std::uint64_t i = 0; i < 100'000; ++i) w.push(i); // several buffers written
  }
  EXPECT_EQ(read_file(path), "old\n");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"out.txt"});
}
