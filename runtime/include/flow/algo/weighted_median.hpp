#pragma once
// The pivot rule of exact multiway selection, shared by algo::multiway_split (which
// splits a parallel merge) and the priority queue's pq::multiseq_split: the weighted
// median of the middle elements of the ranges still open, each weighted by its range's
// length, so that the open ranges shrink geometrically.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace flow::algo {

/// A candidate pivot: the middle element of an open range, weighted by its length.
template <class T> struct weighted_pivot {
  const T* value;
  std::uint64_t weight;
};

/// Sorts `cands` (not empty) by value and returns the first value at which the weights
/// so far reach half of `total`, the sum of all weights.
template <class T, class Less>
const T* weighted_median(std::vector<weighted_pivot<T>>& cands, std::uint64_t total, const Less& less) {
  std::sort(cands.begin(), cands.end(),
            [&](const weighted_pivot<T>& a, const weighted_pivot<T>& b) { return less(*a.value, *b.value); });
  std::uint64_t acc = 0;
  for (const auto& c : cands) {
    acc += c.weight;
    if (2 * acc >= total) return c.value;
  }
  return cands.back().value;
}

} // namespace flow::algo
