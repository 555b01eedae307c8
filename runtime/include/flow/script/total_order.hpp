#pragma once
// The total order of keys in generated programs. Sorts, orders declared by the script,
// merges, priority queues, reduce, unique, joins and the min/max aggregates compare and
// group values through these functions, never through `<` and `==` on floats: IEEE `<`
// is no strict weak order once a NaN takes part (std::sort and the merges may then put
// out anything, or stop), and `NaN == NaN` is false, so NaN keys would never group.
//
// The order is PostgreSQL's and DuckDB's:
//   - every NaN (whatever its sign and payload bits: 0.0/0.0 is a negative NaN on x86)
//     is greater than every number, +inf included, and all NaNs are equal;
//   - -0.0 and +0.0 are equal (as with ==);
//   - everything else as `<` and `==`.
// Integers and bools order as usual; an array orders lexicographically by its elements.
// The script's own operators (`a < b`, `a == b`) stay IEEE.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "flow/script/values.hpp"

namespace flow::script {

namespace detail {
template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};
} // namespace detail

template <class T> constexpr bool total_less(const T& a, const T& b) noexcept;
template <class T> constexpr bool total_equal(const T& a, const T& b) noexcept;

/// a < b in the total order.
template <class T> constexpr bool total_less(const T& a, const T& b) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return false; // a NaN is less than nothing
    return b != b || a < b;   // every number is less than a NaN
  } else if constexpr (detail::is_std_array<T>::value) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!total_equal(a[i], b[i])) return total_less(a[i], b[i]);
    return false;
  } else {
    return a < b;
  }
}

/// a and b are equal in the total order (one group for reduce, unique and join).
template <class T> constexpr bool total_equal(const T& a, const T& b) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (a != a && b != b);
  } else if constexpr (detail::is_std_array<T>::value) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!total_equal(a[i], b[i])) return false;
    return true;
  } else {
    return a == b;
  }
}

/// The one value that stands for v's class of equal values: every NaN as the positive
/// quiet NaN, -0.0 as +0.0. Equal values have equal bytes, so they hash alike.
template <class T> constexpr T total_canonical(const T& v) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) return std::numeric_limits<T>::quiet_NaN();
    return v == 0 ? T(0) : v;
  } else if constexpr (detail::is_std_array<T>::value) {
    T c;
    for (std::size_t i = 0; i < v.size(); ++i) c[i] = total_canonical(v[i]);
    return c;
  } else {
    return v;
  }
}

/// A hash of a key: values equal in the total order hash alike (hash of the canonical value).
template <class T> std::uint64_t total_hash(const T& v) { return hash(total_canonical(v)); }

/// The radix image of a float: an unsigned integer of the float's width whose order is
/// the total order, equal exactly for equal values (the sorter's key of an order).
/// Negative numbers have all bits flipped, others the sign bit set, after canonicalising.
template <class F> constexpr auto total_key(F v) noexcept {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>, "total_key is for f32 and f64");
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr U sign = U{1} << (sizeof(U) * 8 - 1);
  const U bits = std::bit_cast<U>(total_canonical(v));
  return static_cast<U>(bits & sign ? ~bits : bits | sign);
}

/// The smallest and the largest value of a scalar type in the total order (the sentinels
/// of an order): -inf and NaN for floats.
template <class T> constexpr T total_lowest() noexcept {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <class T> constexpr T total_highest() noexcept {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else return std::numeric_limits<T>::max();
}

/// min(a, b) and max(a, b) in the total order (max with a NaN is NaN, min is the number):
/// either argument order gives the same answer, as a reduce function needs.
template <class T> constexpr T total_min(const T& a, const T& b) noexcept { return total_less(b, a) ? b : a; }
template <class T> constexpr T total_max(const T& a, const T& b) noexcept { return total_less(a, b) ? b : a; }

} // namespace flow::script
