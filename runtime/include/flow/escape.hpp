#pragma once
// One escaper per output format that Flow writes text into, so each format's rules live
// in one place (flowc and the runtime both include this header; flowc does not link the
// runtime's library, hence inline):
//   json_string         a JSON string: explain --format=json, the end-of-run report, the
//                       trace, the I/O statistics, a path param's shown value;
//   cpp_string_literal  a C++ string literal: everything flowc's codegen quotes.
// Messages that quote user input use flow::excerpt (flow/excerpt.hpp): short, and safe on
// a terminal, which is a different job. Formats with a single writer keep their escaper
// beside it: DOT labels (explain.cpp, --format=dot) and make rules (emit_command.cpp,
// --depfile).
#include "flow/excerpt.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace flow {

namespace detail {

/// `s` between double quotes for a format whose strings, like JSON's and C++'s, escape
/// `"` and `\` with a backslash, write newline and tab as \n and \t and keep valid
/// UTF-8 as it is. Every other byte goes to `escape(out, c, n)` first (c the byte, n the
/// length of the UTF-8 sequence it starts, 0 when it starts none), which appends the
/// format's escape and returns true, or returns false to copy the sequence unchanged.
template <class Escape> std::string quote_utf8(std::string_view s, Escape escape) {
  std::string o = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c >= 0x80 ? utf8_sequence_length(s, i) : 1;
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (!escape(o, c, n)) {
      o.append(s.data() + i, n);
    }
    i += n == 0 ? 1 : n;
  }
  return o + "\"";
}

} // namespace detail

/// `s` as a JSON string, quotes included. JSON text must be UTF-8 (RFC 8259), and names
/// and paths are arbitrary bytes, so: `"` and `\` are escaped, control characters below
/// U+0020 become \n, \t, \r or \u00XX, valid UTF-8 is copied, and each byte that is not
/// part of valid UTF-8 becomes U+FFFD (the replacement character) rather than making
/// the whole document unreadable.
inline std::string json_string(std::string_view s) {
  return detail::quote_utf8(s, [](std::string& o, unsigned char c, std::size_t n) {
    static const char hex[] = "0123456789abcdef";
    if (c == '\r') {
      o += "\\r";
    } else if (c < 0x20) {
      o += "\\u00";
      o += hex[c >> 4];
      o += hex[c & 15];
    } else if (n == 0) {
      o += "\\ufffd";
    } else {
      return false;
    }
    return true;
  });
}

/// `s` as a C++ string literal, quotes included, whose value is exactly the bytes of `s`.
/// `"` and `\` are escaped, newline and tab read \n and \t; other control bytes and bytes
/// that are not valid UTF-8 become three-digit octal escapes (never a hex escape, which
/// would swallow a following hex digit), since a raw one can end the line or break the
/// source's encoding. Valid UTF-8 stays as it is, so the generated code reads like the
/// script.
inline std::string cpp_string_literal(std::string_view s) {
  return detail::quote_utf8(s, [](std::string& q, unsigned char c, std::size_t n) {
    if (n != 0 && c >= 0x20 && c != 0x7f) return false;
    q += '\\';
    q += static_cast<char>('0' + (c >> 6));
    q += static_cast<char>('0' + ((c >> 3) & 7));
    q += static_cast<char>('0' + (c & 7));
    return true;
  });
}

} // namespace flow
