#pragma once
// Saturating arithmetic for the planners (sort model, memory plan, queue plan): counts up
// to 2^63 give byte totals of at most 2^64 - 1 ("saturated") instead of wrapping, so no
// planning loop can turn endless on a huge count.
#include <cstdint>
#include <limits>

namespace flow::plan {

inline constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

inline constexpr std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > saturated - b ? saturated : a + b;
}
inline constexpr std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) noexcept {
  return b != 0 && a > saturated / b ? saturated : a * b;
}

} // namespace flow::plan
