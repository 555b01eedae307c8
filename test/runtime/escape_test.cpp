// The escapers of flow/escape.hpp: each output is valid in its format for any bytes, and
// ordinary text comes out as it always did (explain's JSON and the generated C++ are
// pinned by the compiler's tests).
#include "flow/escape.hpp"

#include <gtest/gtest.h>
#include <string>

using flow::cpp_string_literal;
using flow::json_string;

TEST(JsonString, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("sort → write, n0"), "\"sort → write, n0\"");
}

TEST(JsonString, EscapesQuotesBackslashesAndEveryControlCharacter) {
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("\n\t\r"), "\"\\n\\t\\r\"");
  EXPECT_EQ(json_string(std::string("\0\x01\x1b\x1f", 4)), "\"\\u0000\\u0001\\u001b\\u001f\"");
  EXPECT_EQ(json_string(" \x7f"), "\" \x7f\"") << "DEL and space are allowed as they are";
}

TEST(JsonString, KeepsUtf8AndReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(json_string("größe 東京 😀"), "\"größe 東京 😀\"");
  EXPECT_EQ(json_string("a\xff" "b"), "\"a\\ufffdb\"") << "a byte that never starts UTF-8";
  EXPECT_EQ(json_string("\xc3"), "\"\\ufffd\"") << "a sequence cut short";
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\ufffd\\ufffd\"") << "an overlong form, byte by byte";
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"") << "a surrogate";
}

TEST(CppStringLiteral, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(cpp_string_literal(""), "\"\"");
  EXPECT_EQ(cpp_string_literal("edges.bin"), "\"edges.bin\"");
  EXPECT_EQ(cpp_string_literal("größe 東京"), "\"größe 東京\"") << "the generated code reads like the script";
}

TEST(CppStringLiteral, EscapesWhatWouldEndOrBreakTheLiteral) {
  EXPECT_EQ(cpp_string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(cpp_string_literal("a\nb\tc"), "\"a\\nb\\tc\"");
  EXPECT_EQ(cpp_string_literal(std::string("\0\r\x1f\x7f", 4)), "\"\\000\\015\\037\\177\"");
  // Three octal digits always, so a digit after the escape stays a character of its own.
  EXPECT_EQ(cpp_string_literal("\x01" "7"), "\"\\0017\"");
}

TEST(CppStringLiteral, BytesThatAreNotUtf8BecomeOctalEscapesOfThemselves) {
  EXPECT_EQ(cpp_string_literal("a\xff" "b"), "\"a\\377b\"");
  EXPECT_EQ(cpp_string_literal("\xc3"), "\"\\303\"");
  // The escapes spell the same bytes: the literal's value is the input.
  const char value[] = "a\377b\303";
  EXPECT_EQ(std::string(value), std::string("a\xff" "b\xc3"));
}
