#pragma once
// `str`, the string type of generated programs: at most Cap bytes held inline, so that a
// str is a fixed-size, trivially copyable value like every other element type (the
// containers, the sorter and the files move elements as raw bytes). One program has one
// Cap (flowc --max-str); every way to make a longer string is an error naming that flag.
//
// A str is bytes, not characters: equality and order are memcmp's (LC_ALL=C), lower and
// upper change ASCII letters only, and a byte >= 0x80 is a letter for words(). The bytes
// past the length are always zero, so equal strings have equal bytes.
#include <algorithm>
#include <bit>
#include <charconv>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "flow/excerpt.hpp"
#include "flow/script/error.hpp"
#include "flow/script/text_scalars.hpp"
#include "flow/script/values.hpp"

namespace flow::script {

namespace detail {
struct str_access;

/// The error of every str longer than Cap: its length, its start and the flag that helps.
[[noreturn]] inline void str_too_long(const char* where, std::size_t bytes, std::size_t cap, std::string_view s) {
  fail(where, "a string of " + std::to_string(bytes) + " bytes is longer than the " + std::to_string(cap) +
                  " bytes a str holds (it starts '" + excerpt(s) +
                  "'); compile with flowc --max-str BYTES for longer strings");
}
} // namespace detail

/// A string of at most Cap bytes, held inline: `char bytes_[Cap]; uint16_t len_;`.
template <std::size_t Cap> class str {
  // Cap + 1 is the sentinel's length, and an even Cap leaves no padding after len_
  // (padding bytes would be undefined, and hash and raw copies see them).
  static_assert(Cap <= 65534, "a str holds at most 65534 bytes");
  static_assert(Cap % 2 == 0, "a str's capacity is even, so that it has no padding");

public:
  static constexpr std::size_t capacity = Cap;

  /// The empty string, every byte zero.
  constexpr str() noexcept : bytes_{}, len_(0) {}

  /// `s` as a str; longer than Cap is a script error at `where`.
  static str from(std::string_view s, const char* where) {
    if (s.size() > Cap) [[unlikely]]
      detail::str_too_long(where, s.size(), Cap, s);
    str r;
    if (!s.empty()) std::memcpy(r.bytes_, s.data(), s.size());
    r.len_ = static_cast<std::uint16_t>(s.size());
    return r;
  }

  /// The order's largest value (numeric_limits<str>::max(), a sort's sentinel): all bytes
  /// 0xFF and one byte longer than any str can be, so greater than every string. It is
  /// no string: its view is Cap 0xFF bytes, only its comparisons are meaningful.
  static constexpr str max_sentinel() noexcept {
    str r;
    for (std::size_t i = 0; i < Cap; ++i) r.bytes_[i] = static_cast<char>(0xff);
    r.len_ = static_cast<std::uint16_t>(Cap + 1);
    return r;
  }

  /// The length in bytes (clamped, so that the sentinel's view stays inside the bytes).
  std::size_t size() const noexcept { return std::min<std::size_t>(len_, Cap); }
  bool empty() const noexcept { return len_ == 0; }
  const char* data() const noexcept { return bytes_; }
  /// The bytes; explicit, not a conversion, so that `s == "x"` and overloads of
  /// string_view and str are never ambiguous.
  std::string_view view() const noexcept { return std::string_view(bytes_, size()); }

  friend bool operator==(const str& a, const str& b) noexcept {
    return a.len_ == b.len_ && std::memcmp(a.bytes_, b.bytes_, a.size()) == 0;
  }
  /// memcmp over the common length, then the shorter first (the sentinel's Cap + 1 makes
  /// it greater than a string of Cap 0xFF bytes).
  friend std::strong_ordering operator<=>(const str& a, const str& b) noexcept {
    const std::size_t n = std::min<std::size_t>(std::min(a.len_, b.len_), Cap);
    if (n > 0) {
      const int c = std::memcmp(a.bytes_, b.bytes_, n);
      if (c != 0) return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
    }
    return a.len_ <=> b.len_;
  }

private:
  friend struct detail::str_access;

  char bytes_[Cap];
  std::uint16_t len_;
};

namespace detail {
/// How the helpers below make a str of bytes they know fit (a part of a str, a str
/// changed in place) without checking again.
struct str_access {
  template <std::size_t Cap> static str<Cap> make(std::string_view s, std::string_view more = {}) noexcept {
    str<Cap> r;
    if (!s.empty()) std::memcpy(r.bytes_, s.data(), s.size());
    if (!more.empty()) std::memcpy(r.bytes_ + s.size(), more.data(), more.size());
    r.len_ = static_cast<std::uint16_t>(s.size() + more.size());
    return r;
  }
  template <std::size_t Cap> static char* bytes(str<Cap>& s) noexcept { return s.bytes_; }
  /// Sets the length of bytes written at bytes(s); the bytes past n must be zero.
  template <std::size_t Cap> static void set_size(str<Cap>& s, std::size_t n) noexcept {
    s.len_ = static_cast<std::uint16_t>(n);
  }
  /// The length as stored: Cap + 1 for the sentinel, which size() clamps.
  template <std::size_t Cap> static std::size_t stored_length(const str<Cap>& s) noexcept { return s.len_; }
};

inline bool is_ascii_space(unsigned char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
/// A byte of a word: an ASCII letter or digit, or any byte of a non-ASCII character.
inline bool is_word_byte(unsigned char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}
} // namespace detail

static_assert(sizeof(str<254>) == 256);
static_assert(std::is_trivially_copyable_v<str<254>>);
static_assert(std::is_standard_layout_v<str<254>>);

/// hash(s): the bytes up to the length and the length, not all Cap bytes (the generic
/// hash's way, which would cost 32 words for every short string). Overload resolution
/// prefers it to values.hpp's hash(const T&) as the more specialized template.
template <std::size_t Cap> std::uint64_t hash_str(const str<Cap>& s) noexcept {
  const std::size_t n = s.size();
  const char* p = s.data();
  std::uint64_t h = mix(0x9e3779b97f4a7c15ULL ^ detail::str_access::stored_length(s));
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = mix(h ^ w);
  }
  if (i < n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, n - i);
    h = mix(h ^ w);
  }
  return h;
}
template <std::size_t Cap> std::uint64_t hash(const str<Cap>& s) noexcept { return hash_str(s); }

/// How print shows a str: its bytes as they are.
template <std::size_t Cap> std::string show(const str<Cap>& s) { return std::string(s.view()); }

/// a + b.
template <std::size_t Cap> str<Cap> concat(const str<Cap>& a, const str<Cap>& b, const char* where) {
  const std::size_t n = a.size() + b.size();
  if (n > Cap) [[unlikely]]
    detail::str_too_long(where, n, Cap, a.size() > 0 ? a.view() : b.view());
  return detail::str_access::make<Cap>(a.view(), b.view());
}

/// s[i], the byte at index i.
template <std::size_t Cap> std::uint8_t at(const str<Cap>& s, std::uint64_t i, const char* where) {
  if (i >= s.size()) [[unlikely]]
    fail(where, "index " + std::to_string(i) + " is out of range for a string of " + std::to_string(s.size()) +
                    " bytes");
  return static_cast<std::uint8_t>(s.data()[i]);
}

/// s[a:b], the bytes from index a up to, not including, index b.
template <std::size_t Cap> str<Cap> slice(const str<Cap>& s, std::uint64_t a, std::uint64_t b, const char* where) {
  if (a > b || b > s.size()) [[unlikely]]
    fail(where, "slice [" + std::to_string(a) + ", " + std::to_string(b) + ") is out of range for a string of " +
                    std::to_string(s.size()) + " bytes" + (a > b ? " (its start is after its end)" : ""));
  return detail::str_access::make<Cap>(s.view().substr(a, b - a));
}

/// The index of t's first occurrence in s, or -1 (0 for an empty t).
template <std::size_t Cap> std::int64_t find(const str<Cap>& s, const str<Cap>& t) noexcept {
  const std::size_t at = s.view().find(t.view());
  return at == std::string_view::npos ? -1 : static_cast<std::int64_t>(at);
}
template <std::size_t Cap> bool starts_with(const str<Cap>& s, const str<Cap>& t) noexcept {
  return s.view().starts_with(t.view());
}
template <std::size_t Cap> bool ends_with(const str<Cap>& s, const str<Cap>& t) noexcept {
  return s.view().ends_with(t.view());
}
template <std::size_t Cap> bool contains(const str<Cap>& s, const str<Cap>& t) noexcept {
  return s.view().find(t.view()) != std::string_view::npos;
}

/// s with ASCII letters made lower or upper case; other bytes (UTF-8 included) stay.
template <std::size_t Cap> str<Cap> lower(const str<Cap>& s) noexcept {
  str<Cap> r = s;
  char* b = detail::str_access::bytes(r);
  for (std::size_t i = 0; i < r.size(); ++i)
    if (b[i] >= 'A' && b[i] <= 'Z') b[i] = static_cast<char>(b[i] - 'A' + 'a');
  return r;
}
template <std::size_t Cap> str<Cap> upper(const str<Cap>& s) noexcept {
  str<Cap> r = s;
  char* b = detail::str_access::bytes(r);
  for (std::size_t i = 0; i < r.size(); ++i)
    if (b[i] >= 'a' && b[i] <= 'z') b[i] = static_cast<char>(b[i] - 'a' + 'A');
  return r;
}
/// s without ASCII white space (space, \t, \n, \v, \f, \r) at either end.
template <std::size_t Cap> str<Cap> trim(const str<Cap>& s) noexcept {
  std::string_view v = s.view();
  while (!v.empty() && detail::is_ascii_space(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && detail::is_ascii_space(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  return detail::str_access::make<Cap>(v);
}

namespace detail {
/// s as a T by text_scalars.hpp's rules (the rules of a text file's field: no white
/// space around the value); a script error at `where` quoting s and the reason.
template <class T, std::size_t Cap> T parse_str(const str<Cap>& s, const char* where) {
  T x{};
  const std::string why = parse_scalar(s.view(), x);
  if (!why.empty()) [[unlikely]]
    fail(where, "cannot parse '" + excerpt(s.view()) + "' as " + scalar_type_name<T>() + ": " + why);
  return x;
}
template <class T, std::size_t Cap> T try_parse_str(const str<Cap>& s, T fallback) {
  T x{};
  return parse_scalar(s.view(), x).empty() ? x : fallback;
}
} // namespace detail

/// s as a number, as a text file's field is read (flow/script/text_scalars.hpp); any other
/// text is a script error at `where`. try_parse_* give `fallback` instead.
template <std::size_t Cap> std::uint64_t parse_u64(const str<Cap>& s, const char* where) {
  return detail::parse_str<std::uint64_t>(s, where);
}
template <std::size_t Cap> std::int64_t parse_i64(const str<Cap>& s, const char* where) {
  return detail::parse_str<std::int64_t>(s, where);
}
template <std::size_t Cap> double parse_f64(const str<Cap>& s, const char* where) {
  return detail::parse_str<double>(s, where);
}
template <std::size_t Cap> std::uint64_t try_parse_u64(const str<Cap>& s, std::uint64_t fallback) {
  return detail::try_parse_str<std::uint64_t>(s, fallback);
}
template <std::size_t Cap> std::int64_t try_parse_i64(const str<Cap>& s, std::int64_t fallback) {
  return detail::try_parse_str<std::int64_t>(s, fallback);
}
template <std::size_t Cap> double try_parse_f64(const str<Cap>& s, double fallback) {
  return detail::try_parse_str<double>(s, fallback);
}

/// s.len(): the length in bytes.
template <std::size_t Cap> std::uint64_t len(const str<Cap>& s) noexcept { return s.size(); }

/// A sort's radix key of a str: its first 8 bytes, big-endian. Since the bytes past a
/// string's end are zero, prefix_key(a) < prefix_key(b) implies a < b; equal prefixes
/// leave the order to the full comparison (the sentinel's prefix is all ones).
template <std::size_t Cap> std::uint64_t prefix_key(const str<Cap>& s) noexcept {
  std::uint64_t k = 0;
  std::memcpy(&k, s.data(), std::min<std::size_t>(8, Cap));
  if constexpr (std::endian::native == std::endian::little) k = __builtin_bswap64(k);
  return k;
}

/// The 8 bytes of s from byte `offset` on, big-endian, zero past Cap: the deeper words of
/// a sort's key (prefix_key is offset 0). For strings equal in their first `offset`
/// bytes, a smaller word implies the smaller string, as for prefix_key.
template <std::size_t Cap> std::uint64_t prefix_key_at(const str<Cap>& s, std::size_t offset) noexcept {
  std::uint64_t k = 0;
  if (offset < Cap) std::memcpy(&k, s.data() + offset, std::min<std::size_t>(8, Cap - offset));
  if constexpr (std::endian::native == std::endian::little) k = __builtin_bswap64(k);
  return k;
}

/// How many words from byte `offset` on hold bytes of s (0 when s ends there): past them
/// s's words are zero.
template <std::size_t Cap> unsigned prefix_words_from(const str<Cap>& s, std::size_t offset) noexcept {
  const std::size_t n = s.size(); // (the sentinel's Cap bytes)
  return n > offset ? static_cast<unsigned>((n - offset + 7) / 8) : 0u;
}

/// How many words from byte `offset` on any str of type S can have.
template <class S> constexpr unsigned str_key_words(std::size_t offset) noexcept {
  constexpr std::size_t cap = std::remove_cvref_t<S>::capacity;
  return offset < cap ? static_cast<unsigned>((cap - offset + 7) / 8) : 0u;
}

/// The word of a sort's key after a str's bytes: its length, as stored (the sentinel's
/// Cap + 1 above every string's), which orders strings whose bytes are the same but for
/// trailing zero bytes ("ab" before "ab\0").
template <std::size_t Cap> std::uint64_t key_length(const str<Cap>& s) noexcept {
  return detail::str_access::stored_length(s);
}

namespace detail {
/// Writes x as print shows it (show()) at out[n, cap) and moves n past it; false when it
/// does not fit (what was written past n is then garbage). No std::string: a 16-digit
/// number is longer than its small-string buffer, and str(x) ran malloc per element.
template <class T> bool append_shown(char* out, std::size_t cap, std::size_t& n, const T& x) noexcept {
  if constexpr (is_str<T>::value || std::is_convertible_v<const T&, std::string_view>) {
    const std::string_view v = [&] {
      if constexpr (is_str<T>::value) return x.view();
      else return std::string_view(x);
    }();
    if (v.size() > cap - n) return false;
    if (!v.empty()) std::memcpy(out + n, v.data(), v.size());
    n += v.size();
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    return append_shown(out, cap, n, std::string_view(x ? "true" : "false"));
  } else {
    std::to_chars_result r;
    if constexpr (std::is_integral_v<T>) r = std::to_chars(out + n, out + cap, +x);
    else r = std::to_chars(out + n, out + cap, x); // floats: show()'s shortest form
    if (r.ec != std::errc()) return false;
    n = static_cast<std::size_t>(r.ptr - out);
    return true;
  }
}
} // namespace detail

/// "{a} and {b}" and str(x): the parts (literal text, strs and scalars) as print shows
/// them, one after the other, written straight into the str; longer than Cap is a script
/// error at `where` that names the whole text's length.
template <std::size_t Cap, class... Parts> str<Cap> format_str(const char* where, const Parts&... parts) {
  str<Cap> r;
  std::size_t n = 0;
  if ((detail::append_shown(detail::str_access::bytes(r), Cap, n, parts) && ...)) {
    detail::str_access::set_size(r, n);
    return r;
  }
  std::string whole;
  ((whole += show(parts)), ...);
  return str<Cap>::from(whole, where); // too long: its error
}

namespace detail {
/// How str_pieces cuts a string: next(s, pos, piece) sets `piece` to the piece at or
/// after `pos` and moves `pos` past it; false when no piece is left.
struct word_cut { // the maximal runs of word bytes (is_word_byte)
  std::string_view sep; // unused
  bool next(std::string_view s, std::size_t& pos, std::string_view& piece) const noexcept {
    while (pos < s.size() && !is_word_byte(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos >= s.size()) return false;
    const std::size_t start = pos;
    while (pos < s.size() && is_word_byte(static_cast<unsigned char>(s[pos]))) ++pos;
    piece = s.substr(start, pos - start);
    return true;
  }
};
struct separator_cut { // the pieces between the occurrences of sep
  std::string_view sep;
  bool next(std::string_view s, std::size_t& pos, std::string_view& piece) const noexcept {
    if (pos > s.size()) return false; // past the piece after the last separator
    const std::size_t at = s.find(sep, pos);
    const std::size_t end = at == std::string_view::npos ? s.size() : at;
    piece = s.substr(pos, end - pos);
    pos = at == std::string_view::npos ? s.size() + 1 : at + sep.size();
    return true;
  }
};
} // namespace detail

/// The pieces of a str, each a str<Cap>, as `for w in s.words()` and `for f in
/// s.split(sep)` go over them (Cut: detail::word_cut, detail::separator_cut). The range
/// holds its own copy of the string and separator (a loop over the pieces of a temporary
/// stays valid) and the iterator its current piece: nothing is allocated.
template <std::size_t Cap, class Cut> class str_pieces {
public:
  struct sentinel {};
  class iterator {
  public:
    using iterator_concept = std::input_iterator_tag;
    using value_type = str<Cap>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(std::string_view s, Cut cut) noexcept : s_(s), cut_(cut) { advance(); }
    const str<Cap>& operator*() const noexcept { return piece_; }
    const str<Cap>* operator->() const noexcept { return &piece_; }
    iterator& operator++() noexcept {
      advance();
      return *this;
    }
    void operator++(int) noexcept { advance(); }
    friend bool operator==(const iterator& it, sentinel) noexcept { return it.done_; }

  private:
    void advance() noexcept {
      std::string_view piece;
      done_ = !cut_.next(s_, pos_, piece);
      if (!done_) piece_ = detail::str_access::make<Cap>(piece);
    }
    std::string_view s_;
    Cut cut_{};
    std::size_t pos_ = 0;
    str<Cap> piece_;
    bool done_ = false;
  };

  str_pieces(const str<Cap>& s, const str<Cap>& sep) noexcept : s_(s), sep_(sep) {}
  iterator begin() const noexcept { return iterator(s_.view(), Cut{sep_.view()}); }
  sentinel end() const noexcept { return {}; }

private:
  str<Cap> s_, sep_;
};

/// `for w in s.words()`: the maximal runs of word bytes (detail::is_word_byte).
template <std::size_t Cap> str_pieces<Cap, detail::word_cut> words(const str<Cap>& s) noexcept {
  return {s, str<Cap>{}};
}

/// `for f in s.split(sep)`: the pieces between the occurrences of `sep`, as Python's
/// s.split(sep) gives them: "a,,b" is "a", "", "b"; "" is one empty piece. An empty
/// separator is a script error at `where` (it would split nowhere, or everywhere).
template <std::size_t Cap>
str_pieces<Cap, detail::separator_cut> split(const str<Cap>& s, const str<Cap>& sep, const char* where) {
  if (sep.empty()) [[unlikely]]
    fail(where, "split's separator is the empty string");
  return {s, sep};
}

} // namespace flow::script

/// The bounds of a str in its order, which sorts and orders take as their sentinels
/// (numeric_limits<T>::lowest() and max() of every scalar type): the empty string, and
/// the sentinel above every string.
template <std::size_t Cap> class std::numeric_limits<flow::script::str<Cap>> {
public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = false;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = true;
  static constexpr bool is_bounded = true;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr flow::script::str<Cap> min() noexcept { return {}; }
  static constexpr flow::script::str<Cap> lowest() noexcept { return {}; }
  static constexpr flow::script::str<Cap> max() noexcept { return flow::script::str<Cap>::max_sentinel(); }
};
