#pragma once
// How Flow shows byte counts and element counts to people — in flowc explain, in a
// program's --stats and in error messages alike: three significant digits and a binary
// unit ("1.61 MiB", "63.5 MiB", "512 MiB", "200 B"); counts with a decimal unit
// ("1.05 M", "17").
#include <cmath>
#include <cstdio>
#include <string>

namespace flow {

namespace detail {
inline std::string three_digits(double v, const char* const* units, int n_units, double step, bool round_up = false) {
  int u = 0;
  while (v >= step && u < n_units - 1) {
    v /= step;
    ++u;
  }
  if (round_up) { // a least amount ("needs at least …") is never shown below itself
    const double scale = u == 0 ? 1 : v < 10 ? 100 : v < 100 ? 10 : 1;
    v = std::ceil(v * scale - 1e-9) / scale;
  }
  char buf[48];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f%s", v, units[0]);
  else std::snprintf(buf, sizeof buf, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, units[u]);
  return buf;
}
} // namespace detail

/// `round_up`: for a least amount, shown rounded up ("needs at least 146 KiB").
inline std::string format_bytes(double bytes, bool round_up = false) {
  static const char* const units[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB"};
  return detail::three_digits(bytes, units, 6, 1024, round_up);
}

inline std::string format_count(double count) {
  static const char* const units[] = {"", " K", " M", " G", " T", " P"};
  return detail::three_digits(count, units, 6, 1000);
}

} // namespace flow
