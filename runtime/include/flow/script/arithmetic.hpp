#pragma once
// Flow's arithmetic rules where C++ would be undefined: wrap-around +, -, * and negation,
// division by zero as an error naming the script's line, shifts by any count, and
// float-to-integer conversion checked against the range.
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "flow/script/error.hpp"

namespace flow::script {

/// Flow's integer arithmetic wraps around (two's complement). C++ leaves signed overflow
/// undefined and promotes narrow types to int (where u16 * u16 can overflow), so +, -, *
/// and unary - of integers are done in the unsigned type of at least int's width and
/// converted back, which C++20 defines as wrapping.
template <class T> using wide_unsigned_t = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
template <class T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) + static_cast<wide_unsigned_t<T>>(b));
  else return a + b;
}
template <class T> T sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) - static_cast<wide_unsigned_t<T>>(b));
  else return a - b;
}
template <class T> T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) * static_cast<wide_unsigned_t<T>>(b));
  else return a * b;
}
template <class T> T neg(T a) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(wide_unsigned_t<T>{0} - static_cast<wide_unsigned_t<T>>(a));
  else return -a;
}

/// a / b and a % b for integers: division by zero is an error, not undefined behaviour;
/// the lowest signed value divided by -1 wraps (as two's complement arithmetic does).
template <class T> T div(T a, T b, const char* where) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) fail(where, "division by zero");
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return neg(a);
  }
  return static_cast<T>(a / b);
}
template <class T> T mod(T a, T b, const char* where) {
  if (b == 0) fail(where, "division by zero");
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return 0;
  return static_cast<T>(a % b);
}

/// a << n and a >> n in the type of a: a count at or beyond its width gives 0 (or, for
/// >> of a negative value, -1), where C++ leaves it undefined.
template <class T, class N> T shift_left(T a, N n) {
  if (static_cast<std::uint64_t>(n) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) << n);
}
template <class T, class N> T shift_right(T a, N n) {
  if (static_cast<std::uint64_t>(n) >= sizeof(T) * 8) return a < 0 ? static_cast<T>(-1) : 0;
  return static_cast<T>(a >> n);
}

/// `x as T`: integers wrap (two's complement), floats to integers must be in range.
template <class To, class From> To convert(From x, const char* where) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    // The range test is on the exact bounds of To as a double.
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (!(x >= lo && x < hi + 1.0)) {
      std::ostringstream s;
      s << "the value " << x << " does not fit in the integer type it is converted to";
      fail(where, s.str());
    }
  }
  return static_cast<To>(x);
}

/// abs for every numeric type; for unsigned types it is the value itself, and the
/// lowest signed value is its own absolute value (it wraps).
template <class T> T abs(T x) {
  if constexpr (std::is_unsigned_v<T>) return x;
  else if constexpr (std::is_integral_v<T>) return x < 0 ? neg(x) : x;
  else return x < 0 ? -x : x;
}

} // namespace flow::script
