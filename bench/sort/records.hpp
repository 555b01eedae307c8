#pragma once
// The records, the random input and the check of the result of the sort benchmarks,
// shared word for word by the Flow program and the STXXL program so both sort exactly
// the same data and are checked alike.
#include <cstdint>
#include <cstring>

#include "../bench.hpp"

namespace bench {

/// The Edge record of examples/mis.flow: 16 bytes, sorted by (src, dst).
struct edge {
  std::uint32_t src, dst, a, b;
  bool operator==(const edge& o) const { return src == o.src && dst == o.dst && a == o.a && b == o.b; }
};
static_assert(sizeof(edge) == 16);

/// A random edge between `nodes` nodes (nodes = edges / 4, as in mis.flow).
inline edge random_edge(std::uint64_t nodes) {
  const std::uint32_t s = static_cast<std::uint32_t>(rnd() % nodes);
  const std::uint32_t d = static_cast<std::uint32_t>(rnd() % nodes);
  return edge{s, d, 0, 0};
}

/// A sort-benchmark record: 10-byte random key, 90 bytes of payload.
struct record {
  unsigned char b[100];
};
static_assert(sizeof(record) == 100);

inline record random_record(std::uint64_t i) {
  record r;
  const std::uint64_t k1 = rnd(), k2 = rnd();
  std::memcpy(r.b, &k1, 8);
  std::memcpy(r.b + 8, &k2, 2);
  for (int j = 10; j < 100; j += 8) {
    const std::uint64_t v = i * 0x0101010101010101ULL + static_cast<std::uint64_t>(j);
    std::memcpy(r.b + j, &v, j + 8 <= 100 ? 8 : 100 - j);
  }
  return r;
}

inline bool record_less(const record& x, const record& y) { return std::memcmp(x.b, y.b, 10) < 0; }

/// The scan of rec100, fed the sorted records in order: checks the order, counts, and
/// sums payload bytes so that both programs must have moved whole records, not keys.
struct record_scan {
  record prev{}; // all zero: the smallest key
  std::uint64_t count = 0, checksum = 0;
  bool ok = true;
  void operator()(const record& r) {
    ok &= !record_less(r, prev);
    prev = r;
    std::uint64_t k;
    std::memcpy(&k, r.b + 10, 8);
    checksum += k;
    ++count;
  }
};

} // namespace bench
