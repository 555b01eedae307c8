// Parsing of param values (integers, floats, bools) for flow::program.
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "flow/excerpt.hpp"
#include "flow/program/flags.hpp"

namespace flow::flags {
namespace {

// A value as messages quote it: short and escaped (flow/excerpt.hpp), since it is user input.
std::string quoted(std::string_view text) { return "'" + excerpt(text) + "'"; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Removes '_' that stand between two digits of `base`; returns false for any other '_'.
bool strip_underscores(std::string_view in, int base, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '_') {
      out += in[i];
      continue;
    }
    if (i == 0 || i + 1 >= in.size()) return false;
    if (digit_value(in[i - 1]) >= base || digit_value(in[i + 1]) >= base) return false;
  }
  return true;
}

// magnitude * 10 + d, recording overflow.
void push_digit(integer_text& r, std::uint64_t base, std::uint64_t d) {
  if (r.overflow) return;
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  if (r.magnitude > (max - d) / base) {
    r.overflow = true;
    return;
  }
  r.magnitude = r.magnitude * base + d;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

} // namespace

integer_text parse_integer_text(std::string_view text) {
  const auto not_number = [&] {
    return std::invalid_argument(quoted(text) + " is not a whole number (write e.g. 42, "
                                                "1_000_000, 0xff or 4e9)");
  };
  integer_text r;
  std::string_view t = text;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    r.negative = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) throw not_number();

  int base = 10;
  if (t.size() > 2 && t[0] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(t[1])));
    if (p == 'x') base = 16;
    else if (p == 'o') base = 8;
    else if (p == 'b') base = 2;
    if (base != 10) t.remove_prefix(2);
  }
  std::string s;
  if (!strip_underscores(t, base == 10 ? 10 : base, s) || s.empty()) throw not_number();

  if (base != 10) {
    for (char c : s) {
      const int d = digit_value(c);
      if (d >= base) throw not_number();
      push_digit(r, static_cast<std::uint64_t>(base), static_cast<std::uint64_t>(d));
    }
    return r;
  }

  // Decimal: digits [. digits] [e [+-] digits]; the value must be a whole number.
  std::string mantissa; // all significant digits, the decimal point removed
  long long exponent = 0;  // value = mantissa * 10^exponent
  std::size_t i = 0;
  bool any_digit = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    mantissa += s[i++];
    any_digit = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      mantissa += s[i++];
      --exponent;
      any_digit = true;
    }
  }
  if (!any_digit) throw not_number();
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i >= s.size()) throw not_number();
    long long e = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (e < 100000) e = e * 10 + (s[i] - '0');
      ++i;
    }
    exponent += neg ? -e : e;
  }
  if (i != s.size()) throw not_number();

  // Drop leading zeros, then trailing zeros into the exponent.
  std::size_t first = mantissa.find_first_not_of('0');
  if (first == std::string::npos) return r; // zero
  mantissa.erase(0, first);
  while (!mantissa.empty() && mantissa.back() == '0') {
    mantissa.pop_back();
    ++exponent;
  }
  if (exponent < 0) {
    throw std::invalid_argument(quoted(text) + " is not a whole number");
  }
  if (static_cast<long long>(mantissa.size()) + exponent > 20) {
    r.overflow = true;
    return r;
  }
  for (char c : mantissa) push_digit(r, 10, static_cast<std::uint64_t>(c - '0'));
  for (long long k = 0; k < exponent; ++k) push_digit(r, 10, 0);
  return r;
}

std::uint64_t parse_unsigned(std::string_view text, unsigned bits, std::string_view type) {
  const integer_text r = parse_integer_text(text);
  const std::uint64_t max =
      bits >= 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1;
  if (r.overflow || r.magnitude > max || (r.negative && r.magnitude != 0)) {
    throw std::invalid_argument(quoted(text) + " is out of range for " + std::string(type) +
                                " (0 to " + std::to_string(max) + ")");
  }
  return r.magnitude;
}

std::int64_t parse_signed(std::string_view text, unsigned bits, std::string_view type) {
  const integer_text r = parse_integer_text(text);
  const std::uint64_t max_pos = (std::uint64_t{1} << (bits - 1)) - 1; // bits <= 64
  const std::uint64_t max_mag = r.negative ? max_pos + 1 : max_pos;
  if (r.overflow || r.magnitude > max_mag) {
    throw std::invalid_argument(quoted(text) + " is out of range for " + std::string(type) + " (" +
                                "-" + std::to_string(max_pos + 1) + " to " +
                                std::to_string(max_pos) + ")");
  }
  if (!r.negative) return static_cast<std::int64_t>(r.magnitude);
  if (r.magnitude == max_pos + 1) return std::numeric_limits<std::int64_t>::min() >> (64 - bits);
  return -static_cast<std::int64_t>(r.magnitude);
}

double parse_float(std::string_view text, unsigned bits, std::string_view type) {
  const auto not_number = [&] {
    return std::invalid_argument(quoted(text) + " is not a number (write e.g. 0.5, 1e-3 or 42)");
  };
  std::string s;
  if (!strip_underscores(text, 10, s) || s.empty()) throw not_number();
  // strtod also takes "inf", "nan" and hex floats; only finite decimal numbers are values.
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '+' || c == '-'))
      throw not_number();
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw not_number();
  const double limit = bits == 32 ? static_cast<double>(FLT_MAX) : DBL_MAX;
  if ((errno == ERANGE && std::fabs(v) > 1) || !std::isfinite(v) || std::fabs(v) > limit) {
    throw std::invalid_argument(quoted(text) + " is out of range for " + std::string(type));
  }
  return v;
}

bool is_bool(std::string_view text) noexcept {
  const std::string t = lower(text);
  return t == "true" || t == "false" || t == "on" || t == "off" || t == "yes" || t == "no" ||
         t == "1" || t == "0";
}

bool parse_bool(std::string_view text) {
  const std::string t = lower(text);
  if (t == "true" || t == "on" || t == "yes" || t == "1") return true;
  if (t == "false" || t == "off" || t == "no" || t == "0") return false;
  throw std::invalid_argument(quoted(text) + " is not a bool (write true or false)");
}

std::string format_float(double value, unsigned bits) {
  char buf[64];
  std::to_chars_result r;
  if (bits == 32) r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value));
  else r = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

} // namespace flow::flags
