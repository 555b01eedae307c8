#pragma once
// The work of the priority queue benchmarks, written once for Flow's queue and STXXL's
// so that both do exactly the same pushes and pops.
#include <cstdint>
#include <vector>

#include "../bench.hpp"

namespace bench {

/// push-rand-pop / push-asc-pop: n pushes (rnd_at(i) or i), then n pops; true if they
/// came out in order. *checksum (if given) is the sum of (p + 1) * (p-th item popped),
/// as bench/pq/pq.flow sums it, for bench/run's check of both sides.
template <class PQ>
bool push_pop(PQ& pq, std::uint64_t n, bool random_keys, std::uint64_t* checksum = nullptr) {
  for (std::uint64_t i = 0; i < n; ++i) pq.push(random_keys ? rnd_at(i) : i);
  bool ok = true;
  std::uint64_t prev = 0, sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t v = pq.top();
    ok &= v >= prev;
    prev = v;
    sum += (i + 1) * v;
    pq.pop();
  }
  if (checksum) *checksum = sum;
  return ok && pq.empty();
}

/// bulk-rewrite on a queue holding 0..n-1: calls bulk(v) for bulks of random size
/// 0..640000 until n items in all.
template <class F> void for_each_bulk(std::uint64_t n, F bulk) {
  for (std::uint64_t extracted = 0; extracted < n;) {
    std::uint64_t v = rnd() % 640001;
    if (v > n - extracted) v = n - extracted;
    bulk(v);
    extracted += v;
  }
}

/// One bulk of bulk-rewrite one item at a time: v pops (checked against prev, the last
/// item popped), then the same items pushed again n higher. False if out of order.
template <class PQ>
bool rewrite_one_by_one(PQ& pq, std::uint64_t v, std::uint64_t n, std::uint64_t& prev,
                        std::vector<std::uint64_t>& work) {
  bool ok = true;
  work.clear();
  for (std::uint64_t j = 0; j < v; ++j) {
    const std::uint64_t x = pq.top();
    ok &= x >= prev;
    prev = x;
    work.push_back(x);
    pq.pop();
  }
  for (std::uint64_t x : work) pq.push(x + n);
  return ok;
}

} // namespace bench
