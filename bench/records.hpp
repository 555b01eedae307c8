#pragma once
// The records, the generated input and the checks of the STXXL programs of bench/run's
// sort and MIS rows, computed exactly as the Flow scripts compute them
// (bench/sort/edges.flow, rec100.flow, bench/mis/mis.flow) so both sides sort the same
// data and their results can be compared.
#include <cstdint>
#include <cstring>

#include "bench.hpp"

namespace bench {

/// The Edge record of examples/mis.flow: 16 bytes, sorted by (src, dst).
struct edge {
  std::uint32_t src, dst, a, b;
};
static_assert(sizeof(edge) == 16);

/// Edge i of a random graph of `nodes` nodes (nodes = edges / 4, as in mis.flow).
inline edge edge_at(std::uint64_t i, std::uint64_t nodes) {
  return edge{static_cast<std::uint32_t>(rnd_at(2 * i) % nodes), static_cast<std::uint32_t>(rnd_at(2 * i + 1) % nodes),
              0, 0};
}

/// What the sort row sums over the unique edges (with their count).
inline std::uint64_t edge_checksum(const edge& e) { return mix(std::uint64_t{e.src} << 32 | e.dst); }

/// A 100-byte record (rec100.flow's Rec): a 10-byte random key, its index, a payload.
struct record {
  unsigned char key[10], pad[2];
  std::uint32_t id;
  unsigned char payload[84];
};
static_assert(sizeof(record) == 100);

/// Record i: key = the 8 bytes of rnd_at(2i) and the low 2 of rnd_at(2i + 1), little-endian
/// (x86-64); the payload is i's low byte repeated.
inline record record_at(std::uint64_t i) {
  record r;
  const std::uint64_t k1 = rnd_at(2 * i), k2 = rnd_at(2 * i + 1);
  std::memcpy(r.key, &k1, 8);
  std::memcpy(r.key + 8, &k2, 2);
  r.pad[0] = r.pad[1] = 0;
  r.id = static_cast<std::uint32_t>(i);
  std::memset(r.payload, static_cast<unsigned char>(i), sizeof r.payload);
  return r;
}

inline bool record_less(const record& x, const record& y) { return std::memcmp(x.key, y.key, 10) < 0; }

/// The scan of the sorted records, in order: checks the order, counts, and sums
/// (p + 1) * mix(id) over positions p plus every payload's last byte, so a wrong order or
/// a record whose key and payload came apart changes the sum.
struct record_scan {
  record prev{}; // all zero: the smallest key
  std::uint64_t count = 0, checksum = 0;
  bool sorted = true;
  void operator()(const record& r) {
    sorted &= !record_less(r, prev);
    prev = r;
    ++count;
    checksum += count * mix(r.id) + r.payload[83];
  }
};

} // namespace bench
