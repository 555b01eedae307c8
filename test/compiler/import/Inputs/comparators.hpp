// Comparator classes: `bool operator()(const T&, const T&) const`, with or without the
// `min_value()` / `max_value()` sentinels.
#pragma once
#include <cstdint>
#include <limits>

namespace kv {
struct Entry {
  uint64_t key;
  uint64_t value;
};

struct ByKey {
  bool operator()(const Entry& a, const Entry& b) const { return a.key < b.key; }
  static Entry min_value() { return {0, 0}; }
  static Entry max_value() { return {std::numeric_limits<uint64_t>::max(), 0}; }
};

struct ByValueNoSentinels {
  bool operator()(const Entry& a, const Entry& b) const { return a.value < b.value; }
};

struct OnlyMin {
  bool operator()(Entry a, Entry b) const { return a.key > b.key; }
  static Entry min_value() { return {0, 0}; }
};
} // namespace kv

struct Descending {
  bool operator()(uint32_t a, uint32_t b) const { return a > b; }
  static constexpr uint32_t min_value() { return std::numeric_limits<uint32_t>::max(); }
  static constexpr uint32_t max_value() { return 0; }
};

struct Derived : kv::ByKey {};

// Not comparators:
struct NotConst {
  bool operator()(const kv::Entry& a, const kv::Entry& b) { return a.key < b.key; }
};
struct Mixed {
  bool operator()(const kv::Entry& a, uint64_t b) const { return a.key < b; }
};
struct ReturnsInt {
  int operator()(const kv::Entry& a, const kv::Entry& b) const { return a.key < b.key; }
};
struct WrongSentinels {
  bool operator()(const kv::Entry& a, const kv::Entry& b) const { return a.key < b.key; }
  kv::Entry min_value() const { return {0, 0}; }
  static uint64_t max_value() { return 0; }
};
