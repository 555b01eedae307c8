#pragma once
// One scalar of a text file: parsing a field as a Flow scalar type, checked in full, and
// writing a scalar as write_text shows it. What a field may be (docs/language.md, "Text
// files"):
//   integers  decimal digits after an optional sign: `+` for every type, `-` only for the
//             signed ones (i8 … i64), in the type's range; leading zeros are allowed
//   f32, f64  a decimal number with an optional sign, fraction and exponent (`1`, `-2.5`,
//             `.5`, `5.`, `1e-3`, `+6.02E23`), or inf, infinity, nan (any case, with a
//             sign): what write_text writes reads back. A magnitude above the type's
//             largest finite value is an error; one below its smallest rounds (to a
//             subnormal or to zero), like any decimal fraction does
//   bool      true, false, 1 or 0
//   str       the field's bytes as they are, at most the str's capacity (flow/script/str.hpp)
// Nothing else: no hexadecimal, no `_` between digits, nothing after the value. A field
// that is not one of these gives the reason as text; the caller adds file, line and field.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <locale.h>
#include <string>
#include <string_view>
#include <type_traits>

#include "flow/excerpt.hpp"

namespace flow::script {

template <std::size_t Cap> class str; // flow/script/str.hpp, which includes this header

namespace detail {
template <class T> struct is_str : std::false_type {};
template <std::size_t Cap> struct is_str<str<Cap>> : std::true_type {};
} // namespace detail

/// The Flow name of a scalar type: u8 … u64, i8 … i64, f32, f64, bool, str.
template <class T> std::string scalar_type_name() {
  if constexpr (detail::is_str<T>::value) return "str";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "f32" : "f64";
  else return (std::is_signed_v<T> ? "i" : "u") + std::to_string(8 * sizeof(T));
}

namespace detail {

inline bool all_digits(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

inline bool equals_ignoring_case(std::string_view a, std::string_view lower) noexcept {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

/// [digits] ['.' [digits]] [(e|E) [+|-] digits], with at least one digit before the
/// exponent: the decimal form, nothing that strtod would also take (hex, nan(...)).
inline bool decimal_float_syntax(std::string_view s) noexcept {
  std::size_t i = 0, mantissa_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++mantissa_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!all_digits(s.substr(i))) return false;
    return true;
  }
  return i == s.size();
}

template <class T> std::string integer_range() {
  return std::to_string(+std::numeric_limits<T>::min()) + " to " + std::to_string(+std::numeric_limits<T>::max());
}

/// A float in the shortest form that reads back to it.
template <class T> std::string shortest(T x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

} // namespace detail

/// Parses `field` (non-empty, no white space) as a T into `x`. Returns "" on success,
/// else why the field is not a T (quoting it as a short, escaped excerpt); `x` is then
/// unchanged.
template <class T> std::string parse_scalar(std::string_view field, T& x) {
  const auto shown = [&] { return "'" + excerpt(field) + "'"; }; // only built for a message
  if constexpr (detail::is_str<T>::value) {
    if (field.size() > T::capacity) {
      return "a field of " + std::to_string(field.size()) + " bytes is longer than the " +
             std::to_string(T::capacity) + " bytes a str holds (it starts " + shown() +
             "); compile with flowc --max-str BYTES for longer strings";
    }
    x = T::from(field, ""); // fits: from's check cannot fail
    return "";
  } else if constexpr (std::is_same_v<T, bool>) {
    if (field == "true" || field == "1") x = true;
    else if (field == "false" || field == "0") x = false;
    else return shown() + " is not a bool (write true, false, 1 or 0)";
    return "";
  } else if constexpr (std::is_integral_v<T>) {
    std::string_view digits = field;
    const bool negative = !digits.empty() && digits[0] == '-';
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    if (!detail::all_digits(digits)) {
      return shown() + " is not " + (std::is_signed_v<T> ? "an " : "a ") + scalar_type_name<T>() +
             (std::is_signed_v<T> ? " (write decimal digits, optionally after + or -)"
                                  : " (write decimal digits, optionally after +)");
    }
    if (negative && std::is_unsigned_v<T>) {
      return shown() + " is negative, but " + scalar_type_name<T>() + " holds " + detail::integer_range<T>();
    }
    // The magnitude, then the sign: a signed type's minimum has no positive counterpart.
    std::uint64_t magnitude = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    using U = std::make_unsigned_t<T>;
    const std::uint64_t limit = std::is_signed_v<T> && negative
                                    ? static_cast<std::uint64_t>(std::numeric_limits<T>::max()) + 1
                                    : static_cast<std::uint64_t>(std::numeric_limits<U>::max() >>
                                                                 (std::is_signed_v<T> ? 1 : 0));
    if (r.ec == std::errc::result_out_of_range || magnitude > limit) {
      return shown() + " is out of range for " + scalar_type_name<T>() + " (" + detail::integer_range<T>() + ")";
    }
    if (negative) x = static_cast<T>(0 - magnitude); // two's complement: -limit is the minimum
    else x = static_cast<T>(magnitude);
    return "";
  } else {
    static_assert(std::is_floating_point_v<T>);
    std::string_view body = field;
    const bool negative = !body.empty() && body[0] == '-';
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
    if (detail::equals_ignoring_case(body, "inf") || detail::equals_ignoring_case(body, "infinity")) {
      x = negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
      return "";
    }
    if (detail::equals_ignoring_case(body, "nan")) {
      x = negative ? -std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::quiet_NaN();
      return "";
    }
    if (!detail::decimal_float_syntax(body)) {
      return shown() + " is not an " + scalar_type_name<T>() +
             " (write a decimal number such as 1, -2.5 or 1e-3, or inf or nan)";
    }
    // strtod/strtof need a terminated string (a field is short: a line is bounded), and
    // the "C" locale, whose decimal point is '.' whatever the program's locale is.
    static const locale_t c_locale = ::newlocale(LC_ALL_MASK, "C", locale_t{});
    const std::string text(field);
    errno = 0;
    char* end = nullptr;
    const T v = sizeof(T) == 4 ? static_cast<T>(::strtof_l(text.c_str(), &end, c_locale))
                               : static_cast<T>(::strtod_l(text.c_str(), &end, c_locale));
    if (end != text.c_str() + text.size()) return shown() + " is not an " + scalar_type_name<T>();
    if (errno == ERANGE && std::isinf(v)) {
      // Overflow; an underflow (ERANGE with a tiny or zero result) is rounding, accepted.
      return shown() + " is out of range for " + scalar_type_name<T>() + " (its largest magnitude is " +
             detail::shortest(std::numeric_limits<T>::max()) + ")";
    }
    x = v;
    return "";
  }
}

/// A str that write_text cannot write as one field (text_writer adds the file and line).
struct text_field_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Why a str cannot be one field of a text line ("" if it can): a field is a word, so an
/// empty str, or one holding white space, would not read back as the value written.
inline std::string unwritable_text_field(std::string_view s) {
  if (s.empty()) return "an empty str is no field (read_text would not see it)";
  if (s.find_first_of(" \t\r\n\v\f") != std::string_view::npos)
    return "the str '" + excerpt(s) + "' holds white space (read_text would read it as several fields)";
  return "";
}

/// Appends `x` as write_text writes it: integers in decimal, bools as true/false, floats
/// in the shortest form that reads back to the same value (inf, -inf, nan for the rest),
/// a str as its bytes. Every value appended reads back as it was: a str that would not
/// (unwritable_text_field) throws text_field_error.
template <class T> void append_scalar(std::string& out, const T& x) {
  if constexpr (detail::is_str<T>::value) {
    if (const std::string why = unwritable_text_field(x.view()); !why.empty()) [[unlikely]]
      throw text_field_error(why);
    out.append(x.data(), x.size());
  } else if constexpr (std::is_same_v<T, bool>) {
    out += x ? "true" : "false";
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, +x);
    out.append(buf, r.ptr);
  }
}

} // namespace flow::script
