#pragma once
// How a message quotes data the user gave (a text file's line, a flag's value): a short
// excerpt that is safe to print on a terminal. Input may be megabytes long, hold control
// bytes, terminal escape sequences or bytes that are not UTF-8; a message that echoed it
// whole could flood the terminal or reprogram it. So an excerpt keeps at most
// `max_chars` characters, shows control bytes (C0, DEL, and the C1 controls U+0080 to
// U+009F, which terminals also obey), bytes that are not UTF-8 and the backslash as
// escapes (\xNN, \\), and ends in "…" when the input was longer.
#include <cstddef>
#include <string>
#include <string_view>

namespace flow {

/// The length of the UTF-8 sequence starting at s[i] (2 to 4), or 0 if there is no
/// valid one (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xbf; // the allowed range of the second byte
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b == 0xe0) n = 3, lo = 0xa0;
  else if (b == 0xed) n = 3, hi = 0x9f; // no surrogates
  else if (b >= 0xe1 && b <= 0xef) n = 3;
  else if (b == 0xf0) n = 4, lo = 0x90;
  else if (b >= 0xf1 && b <= 0xf3) n = 4;
  else if (b == 0xf4) n = 4, hi = 0x8f;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

/// At most `max_chars` characters of `s`, escaped for a message (see above). A
/// character is a printable ASCII byte, a UTF-8 sequence or one escape.
inline std::string excerpt(std::string_view s, std::size_t max_chars = 40) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  std::size_t chars = 0, i = 0;
  for (; i < s.size() && chars < max_chars; ++chars) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    std::size_t n = b >= 0x80 ? utf8_sequence_length(s, i) : 1;
    const bool c1_control = n == 2 && b == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
    if (b == '\\') {
      out += "\\\\";
    } else if (n == 0 || b < 0x20 || b == 0x7f || c1_control) {
      n = 1; // escape this byte; a C1 control's second byte is escaped on its own turn
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 15];
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  if (i < s.size()) out += "…";
  return out;
}

} // namespace flow
