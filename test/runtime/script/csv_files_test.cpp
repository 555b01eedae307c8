// read_csv and write_csv in the runtime: RFC 4180 quoting (separators, doubled quotes and
// line breaks inside quotes), \r\n files, headers in any order, every error naming file,
// line, column and value, and the writer's output reading back as the same records.
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/io/error.hpp"
#include "flow/io/stats.hpp"
#include "flow/script/csv_files.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::script;

namespace {

using s30 = str<30>;

// record Item { name: str, n: u64, x: f64, ok: bool } as the compiler generates its fields.
struct item {
  s30 name;
  std::uint64_t n;
  double x;
  bool ok;
  friend bool operator==(const item&, const item&) = default;
};
struct item_fields {
  static constexpr std::size_t count = 4;
  static constexpr const char* type_name = "Item";
  static constexpr const char* names[count] = {"name", "n", "x", "ok"};
  static void read(csv_row& in, item& v) {
    in.read(v.name, 0);
    in.read(v.n, 1);
    in.read(v.x, 2);
    in.read(v.ok, 3);
  }
  static void write(csv_line& out, const item& v) {
    out.field(v.name);
    out.field(v.n);
    out.field(v.x);
    out.field(v.ok);
  }
};
// record Pair { a: str, b: str }: strings only, for the round trips.
struct pair {
  s30 a, b;
  friend bool operator==(const pair&, const pair&) = default;
};
struct pair_fields {
  static constexpr std::size_t count = 2;
  static constexpr const char* type_name = "Pair";
  static constexpr const char* names[count] = {"a", "b"};
  static void read(csv_row& in, pair& v) {
    in.read(v.a, 0);
    in.read(v.b, 1);
  }
  static void write(csv_line& out, const pair& v) {
    out.field(v.a);
    out.field(v.b);
  }
};
// record One { s: str }: a record whose only field may be empty.
struct one_fields {
  static constexpr std::size_t count = 1;
  static constexpr const char* type_name = "One";
  static constexpr const char* names[count] = {"s"};
  static void read(csv_row& in, s30& v) { in.read(v, 0); }
  static void write(csv_line& out, const s30& v) { out.field(v); }
};
// record Num { i: i32, f: f32 }: numbers only.
struct num {
  std::int32_t i;
  float f;
};
struct num_fields {
  static constexpr std::size_t count = 2;
  static constexpr const char* type_name = "Num";
  static constexpr const char* names[count] = {"i", "f"};
  static void read(csv_row& in, num& v) {
    in.read(v.i, 0);
    in.read(v.f, 1);
  }
  static void write(csv_line& out, const num& v) {
    out.field(v.i);
    out.field(v.f);
  }
};

s30 S(std::string_view v) { return s30::from(v, "test"); }

void write_file(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads all of `path`; returns the records, and the error message in `error`.
template <class T, class F>
std::vector<T> read_all(const std::string& path, std::string* error, csv_options opt = {},
                        std::size_t max_record = text_line_limit) {
  std::vector<T> got;
  try {
    csv_reader<T, F> in(path, opt, /*shared=*/false, max_record);
    for (; !in.empty(); ++in) got.push_back(*in);
  } catch (const file_format_error& e) {
    *error = e.what();
  }
  return got;
}

/// The records of `data` as a file, or the error's message (which names the file as "f.csv").
template <class T, class F> std::vector<T> parse(const std::string& data, std::string* error, csv_options opt = {}) {
  test::scratch_dir dir;
  const std::string path = dir.file("f.csv");
  write_file(path, data);
  std::string message;
  std::vector<T> got = read_all<T, F>(path, &message, opt);
  if (!message.empty() && message.starts_with(path)) message = "f.csv" + message.substr(path.size());
  *error = message;
  return got;
}
std::vector<item> items(const std::string& data, std::string* error, csv_options opt = {}) {
  return parse<item, item_fields>(data, error, opt);
}
/// Only the error of reading `data` as items.
std::string item_error(const std::string& data, csv_options opt = {}) {
  std::string error;
  items(data, &error, opt);
  return error;
}

/// What csv_writer writes for `records` (through a file, read back as bytes).
template <class T, class F> std::string written(const std::vector<T>& records, csv_options opt = {}) {
  test::scratch_dir dir;
  const std::string path = dir.file("out.csv");
  csv_writer<T, F> w(path, opt);
  for (const T& r : records) w.push(r);
  w.finish();
  return read_file(path);
}

} // namespace

TEST(CsvReader, QuotedFieldsHoldSeparatorsDoubledQuotesAndLineBreaks) {
  std::string error;
  const auto got = items("name,n,x,ok\n"
                         "\"a,b\",1,0.5,true\n"
                         "\"say \"\"hi\"\"\",2,1,false\n"
                         "\"two\nlines\",3,2,1\n"
                         "\"crlf\r\ninside\",4,3,0\n"
                         "\"\",\"5\",\"-1e3\",\"true\"\n"
                         "\"\"\"\",6,7,1\n",
                         &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], (item{S("a,b"), 1, 0.5, true}));
  EXPECT_EQ(got[1], (item{S("say \"hi\""), 2, 1.0, false}));
  EXPECT_EQ(got[2], (item{S("two\nlines"), 3, 2.0, true}));
  EXPECT_EQ(got[3], (item{S("crlf\r\ninside"), 4, 3.0, false})) << "a line break inside quotes is the value's";
  EXPECT_EQ(got[4], (item{S(""), 5, -1000.0, true})) << "quoted numbers are numbers";
  EXPECT_EQ(got[5].name, S("\""));
}

TEST(CsvReader, ReadsCrLfLinesSkipsBlankLinesAndTakesALastRecordWithoutNewline) {
  std::string error;
  const auto got = items("name,n,x,ok\r\n\r\na,1,1.5,true\r\n\n\"q\"\r\nb,2,2.5,false", &error, {});
  EXPECT_EQ(error, "f.csv:5: the record has 1 field, the header has 4") << "line 3 and 5 counted";
  EXPECT_EQ(got.size(), 1u);

  const auto good = items("name,n,x,ok\r\n\r\na,1,1.5,true\r\n\n\r\nb,2,2.5,false", &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(good.size(), 2u);
  EXPECT_EQ(good[0], (item{S("a"), 1, 1.5, true})) << "no '\\r' left on the last field";
  EXPECT_EQ(good[1], (item{S("b"), 2, 2.5, false}));
  EXPECT_EQ(items("name,n,x,ok\n\"a\"\r\n", &error).size(), 0u);
  EXPECT_EQ(error, "f.csv:2: the record has 1 field, the header has 4") << "a quoted field before \\r\\n";
}

TEST(CsvReader, TakesFieldsExactlyAndAQuoteInsideAnUnquotedFieldLiterally) {
  std::string error;
  const auto got = items("name,n,x,ok\n a b ,1,2,true\nsay \"hi\",2,3,false\n", &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, S(" a b ")) << "spaces are the value's";
  EXPECT_EQ(got[1].name, S("say \"hi\""));
  EXPECT_EQ(item_error("name,n,x,ok\na, 1,2,true\n"),
            "f.csv:2: column 'n' (u64): cannot parse ' 1': ' 1' is not a u64 (write decimal digits, optionally "
            "after +)")
      << "no trimming of numbers";
}

TEST(CsvReader, EmptyFieldsAreEmptyStrsAndErrorsForNumbersUnlessEmptyAsZero) {
  std::string error;
  const auto strs = parse<pair, pair_fields>("a,b\n,x\n\"\",\n", &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(strs.size(), 2u);
  EXPECT_EQ(strs[0], (pair{S(""), S("x")}));
  EXPECT_EQ(strs[1], (pair{S(""), S("")}));

  EXPECT_EQ(item_error("name,n,x,ok\na,1,2,true\nb,,2,true\n"),
            "f.csv:3: column 'n' (u64) is empty; read_csv(…, empty_as_zero: true) reads an empty number as 0");
  EXPECT_EQ(item_error("name,n,x,ok\nb,1,2,\"\"\n"),
            "f.csv:2: column 'ok' (bool) is empty; read_csv(…, empty_as_zero: true) reads an empty bool as false");

  const auto zero = items("name,n,x,ok\nb,,,\nc,7,\"\",true\n", &error, {.empty_as_zero = true});
  EXPECT_EQ(error, "");
  ASSERT_EQ(zero.size(), 2u);
  EXPECT_EQ(zero[0], (item{S("b"), 0, 0.0, false}));
  EXPECT_EQ(zero[1], (item{S("c"), 7, 0.0, true})) << "each record's own values, none left from the one before";
}

TEST(CsvReader, AHeaderOnlyFileIsEmptyAndAFileWithoutHeaderAnError) {
  std::string error;
  EXPECT_TRUE(items("name,n,x,ok\n", &error).empty());
  EXPECT_EQ(error, "");
  EXPECT_TRUE(items("ok,x,n,name", &error).empty()) << "no newline";
  EXPECT_EQ(error, "");
  EXPECT_EQ(item_error(""), "f.csv: the file is empty: no header line");
  EXPECT_EQ(item_error("\n\r\n\n"), "f.csv: the file is empty: no header line") << "blank lines only";
  EXPECT_TRUE(items("", &error, {.header = false}).empty());
  EXPECT_EQ(error, "") << "without a header an empty file is no records";
}

TEST(CsvReader, HeaderColumnsInAnyOrderWithOthersSkipped) {
  std::string error;
  const auto got = items("id,ok,\"x\",comment,n,name,\n"
                         "1,true,0.25,\"a, b\",10,first,\n"
                         "2,false,-1,,20,second,\n",
                         &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (item{S("first"), 10, 0.25, true}));
  EXPECT_EQ(got[1], (item{S("second"), 20, -1.0, false}));

  // A byte order mark (Excel's) is no part of the first column's name.
  const auto bom = items("\xEF\xBB\xBFname,n,x,ok\nz,1,2,0\n", &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(bom.size(), 1u);
  EXPECT_EQ(bom[0].name, S("z"));
}

TEST(CsvReader, AMissingColumnNamesTheHeaderColumns) {
  EXPECT_EQ(item_error("name,n,ok,country\na,1,true,x\n"),
            "f.csv:1: the header has no column 'x' (its columns are name, n, ok, country)")
      << "no hint: 'n', one edit away, is the record's own";
  EXPECT_EQ(item_error("name,n,ok,xx\n"),
            "f.csv:1: the header has no column 'x' (its columns are name, n, ok, xx); did you mean 'xx'?");
  EXPECT_EQ(item_error("\nname,n,X,ok\n"),
            "f.csv:2: the header has no column 'x' (its columns are name, n, X, ok); did you mean 'X'?");
  EXPECT_EQ(item_error("name;n;x;ok\n"),
            "f.csv:1: the header has no column 'name' (its columns are name;n;x;ok); is the separator ';'? "
            "read_csv(…, sep: \";\") reads it");
  EXPECT_EQ(item_error("name\tn\tx\tok\n"),
            "f.csv:1: the header has no column 'name' (its columns are name\\x09n\\x09x\\x09ok); is the separator "
            "'\\t'? read_csv(…, sep: \"\\t\") reads it");
}

TEST(CsvReader, AColumnNamedTwiceIsAnErrorWhenItIsRead) {
  EXPECT_EQ(item_error("name,n,x,ok,n\n"), "f.csv:1: the header names column 'n' twice (columns 2 and 5)");
  std::string error;
  EXPECT_EQ(items("name,note,n,x,note,ok\na,,1,2,,true\n", &error).size(), 1u) << "a skipped column may repeat";
  EXPECT_EQ(error, "");
}

TEST(CsvReader, ARecordWithTheWrongNumberOfFieldsNamesItsLine) {
  EXPECT_EQ(item_error("name,n,x,ok\na,1,2,true\n\na,1\n"), "f.csv:4: the record has 2 fields, the header has 4");
  EXPECT_EQ(item_error("name,n,x,ok\na,1,2,true,\n"), "f.csv:2: the record has 5 fields, the header has 4");
  EXPECT_EQ(item_error("a,1,2,true\nb,2,3\n", {.header = false}), "f.csv:2: the record has 3 fields, Item has 4");
  EXPECT_EQ(item_error("name,n,x,ok\na;1;2;true\n"),
            "f.csv:2: the record has 1 field, the header has 4; is the separator ';'? "
            "read_csv(…, sep: \";\") reads it");
}

TEST(CsvReader, AnUnterminatedQuoteNamesWhereTheFieldBegan) {
  EXPECT_EQ(item_error("name,n,x,ok\na,1,2,true\nb,2,\"3\n4,true\nc,3,4,false\n"),
            "f.csv:3:5: the quoted field that starts here has no closing quote: the file ends inside it");
  EXPECT_EQ(item_error("name,n,x,ok\n\"abc"),
            "f.csv:2:1: the quoted field that starts here has no closing quote: the file ends inside it");
}

TEST(CsvReader, TextAfterAClosingQuoteIsAnError) {
  EXPECT_EQ(item_error("name,n,x,ok\n\"a\"b,1,2,true\n"),
            "f.csv:2:4: 'b,1,2,true' follows the closing quote of a field, where ',' or the end of the line belongs "
            "(a quote inside a quoted field is written twice: \"\")");
  EXPECT_EQ(item_error("name,n,x,ok\n\"two\nlines\" ,1,2,true\n"),
            "f.csv:3:7: ' ,1,2,true' follows the closing quote of a field, where ',' or the end of the line belongs "
            "(a quote inside a quoted field is written twice: \"\")")
      << "the line and column of the closing quote's line";
}

TEST(CsvReader, ReadsTabSeparatedValues) {
  std::string error;
  const auto got = items("ok\tname\tn\tx\ntrue\ta,b\t1\t2\nfalse\t\"tab\there\"\t3\t4\n", &error, {.sep = '\t'});
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (item{S("a,b"), 1, 2.0, true})) << "a comma is no separator";
  EXPECT_EQ(got[1], (item{S("tab\there"), 3, 4.0, false}));
}

TEST(CsvReader, WithoutHeaderColumnsArePositional) {
  std::string error;
  const auto got = items("name,n,x,ok\n", &error, {.header = false});
  EXPECT_EQ(error, "f.csv:1: column 2 (n) (u64): cannot parse 'n': 'n' is not a u64 (write decimal digits, "
                   "optionally after +)")
      << "a header line is a record like any other";
  const auto rows = items("a,1,2,true\n\nb,2,3,0", &error, {.header = false});
  EXPECT_EQ(error, "");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], (item{S("b"), 2, 3.0, false}));
}

TEST(CsvReader, AValueOverTheStrCapacityIsAnError) {
  const std::string fits(30, 'a'), over(31, 'b');
  std::string error;
  EXPECT_EQ(items("name,n,x,ok\n" + fits + ",1,2,true\n", &error)[0].name, S(fits));
  EXPECT_EQ(error, "");
  EXPECT_EQ(item_error("name,n,x,ok\n" + over + ",1,2,true\n"),
            "f.csv:2: column 'name' (str): a field of 31 bytes is longer than the 30 bytes a str holds (it starts '" +
                over + "'); compile with flowc --max-str BYTES for longer strings");
}

TEST(CsvReader, ABadValueNamesFileLineColumnAndValue) {
  EXPECT_EQ(item_error("name,n,x,ok\na,1,2,true\n\nb,12x,2,true\n"),
            "f.csv:4: column 'n' (u64): cannot parse '12x': '12x' is not a u64 (write decimal digits, optionally "
            "after +)");
  EXPECT_EQ(item_error("name,n,x,ok\nb,1,2,yes\n"),
            "f.csv:2: column 'ok' (bool): cannot parse 'yes': 'yes' is not a bool (write true, false, 1 or 0)");
  EXPECT_EQ(item_error("name,n,x,ok\nb,-1,2,true\n"),
            "f.csv:2: column 'n' (u64): cannot parse '-1': '-1' is negative, but u64 holds 0 to 18446744073709551615");
  std::string error;
  parse<num, num_fields>("i,f\n1,\"1e39\x1b[2J\"\n", &error);
  EXPECT_EQ(error, "f.csv:2: column 'f' (f32): cannot parse '1e39\\x1b[2J': '1e39\\x1b[2J' is not an f32 (write a "
                   "decimal number such as 1, -2.5 or 1e-3, or inf or nan)")
      << "values quoted as escaped excerpts";
}

TEST(CsvReader, LineNumbersCountTheLinesOfMultiLineFields) {
  // The field on a later line of its record is named by that line; records after a
  // multi-line field by their own lines.
  EXPECT_EQ(item_error("n,name,x,ok\n1,\"a\nb\nc\",2,true\n2,\"d\ne\",3,nope\n"),
            "f.csv:6: column 'ok' (bool): cannot parse 'nope': 'nope' is not a bool (write true, false, 1 or 0)");
  EXPECT_EQ(item_error("n,name,x,ok\n1,\"a\nb\nc\",2,true\n2x,\"d\ne\",3,true\n"),
            "f.csv:5: column 'n' (u64): cannot parse '2x': '2x' is not a u64 (write decimal digits, optionally "
            "after +)");
  EXPECT_EQ(item_error("name,n,x,ok\n\"a\nb\nc\",1,2,true\n\n\"d\ne\",2,3\n"),
            "f.csv:6: the record has 3 fields, the header has 4")
      << "a record's own errors name the line it starts on";
  EXPECT_EQ(item_error("name,n,x,ok\n\"a\nb\",1,2,true\nc,1x,2,true\n"),
            "f.csv:4: column 'n' (u64): cannot parse '1x': '1x' is not a u64 (write decimal digits, optionally "
            "after +)");
}

TEST(CsvReader, ARecordLongerThanTheLimitIsAnError) {
  test::scratch_dir dir;
  const std::string path = dir.file("long.csv");
  write_file(path, "a,b\nx,y\n\"" + std::string(60, 'z') + "\n" + std::string(60, 'z') + "\",w\n");
  std::string error;
  EXPECT_EQ((read_all<pair, pair_fields>(path, &error, {}, 100)).size(), 1u);
  EXPECT_EQ(error, path + ":3: the record is longer than 100 bytes, the longest read_csv takes (it starts '\"" +
                       std::string(39, 'z') + "…'); does a quoted field miss its closing quote?");
  write_file(path, "a,b\nx," + std::string(200, 'y') + "\n");
  error.clear();
  read_all<pair, pair_fields>(path, &error, {}, 100);
  EXPECT_EQ(error, path + ":2: the line is longer than 100 bytes, the longest read_csv takes (it starts 'x," +
                       std::string(38, 'y') + "…'); is this a CSV file?");
}

TEST(CsvReader, ReadsMultiLineRecordsAcrossBufferRefillsAndCountsTheBytes) {
  test::scratch_dir dir;
  const std::string path = dir.file("n.csv");
  std::string data = "name,n,x,ok\n";
  for (int i = 0; i < 20'000; ++i)
    data += "\"x" + std::to_string(i % 10) + "\r\ny\",\"" + std::to_string(i) + "\",2,true\n";
  write_file(path, data);
  const io::stats_snapshot before = io::stats::instance().snapshot();
  std::string error;
  const auto got = read_all<item, item_fields>(path, &error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(got.size(), 20'000u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].name, S("x" + std::to_string(i % 10) + "\r\ny")) << i;
    ASSERT_EQ(got[i].n, i);
  }
  std::uint64_t read = 0;
  for (const auto& d : (io::stats::instance().snapshot() - before).disks)
    if (d.name == path) read += d.read_bytes;
  EXPECT_EQ(read, data.size());
}

TEST(CsvWriter, QuotesOnlyWhatWouldNotReadBack) {
  const std::vector<item> rows = {{S("plain"), 1, 0.5, true},
                                  {S("a,b"), 2, -1.0, false},
                                  {S("say \"hi\""), 3, 1e300, true},
                                  {S("two\nlines"), 4, 0.0, false},
                                  {S("cr\r"), 5, 2.5, true},
                                  {S(""), 6, 3.0, false},
                                  {S(" spaced "), 7, 4.0, true}};
  EXPECT_EQ((written<item, item_fields>(rows)), "name,n,x,ok\n"
                                                "plain,1,0.5,true\n"
                                                "\"a,b\",2,-1,false\n"
                                                "\"say \"\"hi\"\"\",3,1e+300,true\n"
                                                "\"two\nlines\",4,0,false\n"
                                                "\"cr\r\",5,2.5,true\n"
                                                ",6,3,false\n"
                                                " spaced ,7,4,true\n");
  EXPECT_EQ((written<item, item_fields>({rows[0], rows[1], rows[2], {S("tab\t"), 0, 0, false}},
                                        {.sep = '\t', .header = false})),
            "plain\t1\t0.5\ttrue\na,b\t2\t-1\tfalse\n\"say \"\"hi\"\"\"\t3\t1e+300\ttrue\n\"tab\t\"\t0\t0\tfalse\n");
  EXPECT_EQ((written<num, num_fields>({{-5, 2.5f}}, {.sep = '.'})), "i.f\n-5.\"2.5\"\n")
      << "a number that holds the separator is quoted too";
  EXPECT_EQ((written<s30, one_fields>({S(""), S("x")})), "s\n\"\"\nx\n") << "an empty record is no blank line";
}

TEST(CsvWriter, WritesTheHeaderAlsoWithoutRecords) {
  EXPECT_EQ((written<item, item_fields>({})), "name,n,x,ok\n");
  EXPECT_EQ((written<item, item_fields>({}, {.sep = ';'})), "name;n;x;ok\n");
  EXPECT_EQ((written<item, item_fields>({}, {.header = false})), "");
}

TEST(CsvWriter, WhatItWritesReadsBackAsTheSameRecords) {
  // Awkward strings (quotes, separators, line breaks, \r, spaces, empty, a leading quote
  // or byte order mark) with every separator and with and without a header.
  std::mt19937_64 rng(7);
  static const char* pieces[] = {"\"", ",", "\t", ";", "\n", "\r", "\r\n", " ", "a", "b", "\xEF\xBB\xBF", "\"\""};
  const auto random_str = [&] {
    std::string s;
    const std::size_t n = rng() % 6;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = pieces[rng() % std::size(pieces)];
      if (s.size() + p.size() > 30) break;
      s += p;
    }
    return S(s);
  };
  for (const char sep : {',', '\t', ';', ' '}) {
    for (const bool header : {true, false}) {
      const csv_options opt{.sep = sep, .header = header};
      std::vector<pair> pairs = {{S(""), S("")}, {S("\""), S(",")}, {S("\xEF\xBB\xBF"), S("x")}};
      std::vector<s30> ones = {S(""), S("\r"), S(" "), S("\n")};
      for (int i = 0; i < 8000; ++i) { // more than a 64 KiB buffer: records across refills
        pairs.push_back({random_str(), random_str()});
        ones.push_back(random_str());
      }
      test::scratch_dir dir;
      const std::string path = dir.file("rt.csv");
      {
        csv_writer<pair, pair_fields> w(path, opt);
        for (const pair& p : pairs) w.push(p);
        w.finish();
      }
      std::string error;
      EXPECT_EQ((read_all<pair, pair_fields>(path, &error, opt)), pairs) << "sep " << int(sep) << " header " << header;
      EXPECT_EQ(error, "");
      {
        csv_writer<s30, one_fields> w(path, opt);
        for (const s30& s : ones) w.push(s);
        w.finish();
      }
      EXPECT_EQ((read_all<s30, one_fields>(path, &error, opt)), ones) << "sep " << int(sep) << " header " << header;
      EXPECT_EQ(error, "");
    }
  }

  // Numbers and bools read back exactly too.
  std::vector<item> rows;
  for (std::uint64_t i = 0; i < 1000; ++i)
    rows.push_back({random_str(), i * 0x9e3779b97f4a7c15ULL, static_cast<double>(i) / 7.0 - 50.0, i % 3 == 0});
  test::scratch_dir dir;
  const std::string path = dir.file("items.csv");
  csv_writer<item, item_fields> w(path);
  for (const item& r : rows) w.push(r);
  w.finish();
  std::string error;
  EXPECT_EQ((read_all<item, item_fields>(path, &error)), rows);
  EXPECT_EQ(error, "");
}

TEST(CsvWriter, AFileIsInPlaceOnlyAfterFinishAndNothingIsLeftBeside) {
  test::scratch_dir dir;
  const std::string path = dir.file("out.csv");
  {
    csv_writer<pair, pair_fields> w(path);
    for (int i = 0; i < 100'000; ++i) w.push({S("a"), S(std::to_string(i))}); // several buffers written
  }
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{}) << "unfinished: no file, no temporary";

  write_file(path, "old\n");
  {
    csv_writer<pair, pair_fields> w(path);
    for (int i = 0; i < 100'000; ++i) w.push({S("a"), S(std::to_string(i))});
  }
  EXPECT_EQ(read_file(path), "old\n") << "unfinished: the old file stays whole";

  {
    csv_writer<pair, pair_fields> w(path);
    w.push({S("x"), S("y")});
    w.finish();
  }
  EXPECT_EQ(read_file(path), "a,b\nx,y\n");
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"out.csv"}) << "no temporary beside it";
}

TEST(CsvWriter, AFullDeviceIsAnError) {
  if (!test::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  bool full = false;
  try {
    csv_writer<pair, pair_fields> w("/dev/full");
    w.push({S("x"), S("y")});
    w.finish();
  } catch (const disk_full_error& e) {
    full = true;
    EXPECT_NE(std::string(e.what()).find("cannot write to '/dev/full'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(full);
}

// csv_share's scan (flow/script/csv_files.hpp): what a span of bytes does, from each state
// it may start in — the state it ends in and its first record start — is what running the
// states byte by byte says, for spans that start and end anywhere and cross the scan's
// 64 KiB reads (where the starts whose states met go on as one). Quotes, separators, line
// breaks, CRs and letters in random order reach every state, the broken one too.
TEST(CsvShare, ASpanDoesFromEveryStateWhatTheStatesByteByByteDo) {
  test::scratch_dir dir;
  const std::string path = dir.file("f.csv");
  std::mt19937 rng(7);
  const std::string pieces = "aaaaaaaa,,\"\"\n\r";
  std::string text;
  for (int i = 0; i < 200000; ++i) text += pieces[rng() % pieces.size()];
  write_file(path, text);
  text_line_reader file(path);
  const std::size_t states = detail::csv_states;
  const auto run = [&](std::size_t start, std::uint64_t from, std::uint64_t to) {
    std::pair<detail::csv_state, std::uint64_t> r{static_cast<detail::csv_state>(start), detail::csv_span_effect::none};
    if (r.first == detail::csv_state::line_start && from < to) r.second = from;
    for (std::uint64_t i = from; i < to; ++i) {
      r.first = detail::csv_next_state(r.first, text[i], ',');
      if (r.first == detail::csv_state::line_start && i + 1 < to && r.second == detail::csv_span_effect::none)
        r.second = i + 1;
    }
    return r;
  };
  const std::uint64_t n = text.size();
  for (const auto& [from, to] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, n}, {0, 1}, {5, 5}, {1, 70000}, {65535, 65537}, {65536, 200000}, {12345, 140001}, {n - 3, n}}) {
    const detail::csv_span_effect effect = detail::csv_scan_span(file, from, to, ',');
    for (std::size_t s = 0; s < states; ++s) {
      const auto [end, first] = run(s, from, to);
      EXPECT_EQ(effect.end[s], end) << "from state " << s << " over [" << from << ", " << to << ")";
      EXPECT_EQ(effect.first_record[s], first) << "from state " << s << " over [" << from << ", " << to << ")";
    }
  }
}
