#pragma once
// The records and the random input of the sort benchmarks, shared word for word by the
// Flow program and the STXXL program so both sort exactly the same data.
#include <cstdint>
#include <cstring>

namespace bench {

inline std::uint64_t rng_state = 42;
inline std::uint64_t rnd() { // splitmix64
  std::uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

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

} // namespace bench
