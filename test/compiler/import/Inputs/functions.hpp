// Free functions: parameters by value or const reference are described, others are
// unsupported; members, templates and variadic functions are not listed.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace geo {
struct Point {
  double x, y;
};

double distance(const Point& a, const Point& b);
Point midpoint(Point a, Point b);
uint64_t hash(uint64_t key, const uint32_t seed);
} // namespace geo

void log_value(int32_t);
bool in_range(int64_t v, int64_t lo = 0, int64_t hi = 100);
void bump(int32_t& counter);
int32_t first(const int32_t* values);
std::string name_of(uint32_t id);
size_t length(const std::string& s);
const geo::Point& origin();
void take(geo::Point&& p);
float scale(float v, double factor);
uint8_t overloaded(uint8_t v);
uint16_t overloaded(uint16_t v);
void sum_keys(const uint8_t (&key)[10]);

inline int32_t defined_twice(int32_t later_name);
inline int32_t defined_twice(int32_t v) { return v; }

template <class T> T identity(T v) { return v; }
int printf_like(const char* fmt, ...);
struct Widget {
  int32_t size() const;
  static Widget make();
  friend bool operator==(const Widget&, const Widget&);
};
bool operator<(const geo::Point& a, const geo::Point& b);
extern "C" {
int32_t c_function(int32_t x);
}
std::array<uint8_t, 10> make_key(uint64_t seed, const std::array<uint8_t, 10>& prefix);
