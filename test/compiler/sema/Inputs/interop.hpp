// A header for the C++ interop error tests.
#pragma once
#include <cstdint>
#include <string>

struct Plain { uint32_t id; double weight; };
struct Labeled { uint32_t id; std::string label; };
struct WithPointer { int* p; uint32_t n; };

namespace net {
inline uint64_t score(const Plain& p, uint32_t bonus) { return p.id + bonus; }
struct by_id {
  bool operator()(const Plain& a, const Plain& b) const { return a.id < b.id; }
};
struct by_weight {
  bool operator()(const Plain& a, const Plain& b) const { return a.weight < b.weight; }
  static Plain min_value() { return Plain{0, -1e300}; }
  static Plain max_value() { return Plain{0, 1e300}; }
};
} // namespace net

struct WithCArray { uint8_t key[10]; uint32_t id; };
