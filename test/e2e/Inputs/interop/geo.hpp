// geo.hpp: C++ helpers imported by points.flow.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <limits>

struct Point { int32_t x, y; uint16_t tag; uint8_t flags; bool ok; };

namespace geo {
inline int64_t distance(const Point& p) { return int64_t(p.x) * p.x + int64_t(p.y) * p.y; }

/// Orders points by their distance from the origin; the sentinels are what merging needs.
struct closer_to_origin {
  bool operator()(const Point& a, const Point& b) const { return distance(a) < distance(b); }
  static Point min_value() { return Point{0, 0, 0, 0, true}; }
  static Point max_value() {
    auto m = std::numeric_limits<int32_t>::max();
    return Point{m, m, 0, 0, true};
  }
};
} // namespace geo
