#pragma once
// Sorted runs of the priority queue as the merge code sees them: a range of global
// positions [begin, end) of a chunked sequence (an internal array's chunk table, or a
// single contiguous buffer such as an external array's current block), with random
// access for binary searches and for splitting a merge between threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "flow/algo/weighted_median.hpp"
#include "flow/containers/pq/loser_tree.hpp"

namespace flow::containers::pq {

/// A contiguous buffer seen as one chunk that no position reaches the end of.
inline constexpr std::size_t contiguous = std::size_t{1} << 62;

template <class T> struct run_range {
  T* const* chunks = nullptr;   // chunk table; chunks[c] holds positions [c*ci, (c+1)*ci)
  std::size_t chunk_items = contiguous;
  std::uint64_t begin = 0, end = 0;

  std::uint64_t size() const noexcept { return end - begin; }
  const T& at(std::uint64_t i) const noexcept { return chunks[i / chunk_items][i % chunk_items]; }
  /// The segment holding position p (< end), cut at `end`.
  segment<T> segment_at(std::uint64_t p) const noexcept {
    const std::uint64_t c = p / chunk_items;
    const std::uint64_t seg_end = std::min<std::uint64_t>(end, (c + 1) * chunk_items);
    const T* base = chunks[c] + (p - c * chunk_items);
    return {base, base + (seg_end - p)};
  }
};

/// First position in [lo, hi) of r whose element is not less than v (cmp(x, v) false).
template <class T, class Cmp>
std::uint64_t lower_pos(const run_range<T>& r, std::uint64_t lo, std::uint64_t hi, const T& v,
                        const Cmp& cmp) {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (cmp(r.at(mid), v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/// First position in [lo, hi) of r whose element is greater than v (cmp(v, x) true).
template <class T, class Cmp>
std::uint64_t upper_pos(const run_range<T>& r, std::uint64_t lo, std::uint64_t hi, const T& v,
                        const Cmp& cmp) {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (cmp(v, r.at(mid))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/// Multisequence selection: positions p[i] in [runs[i].begin, runs[i].end] with
/// sum(p[i] - begin) == rank such that every element before a p is <= every element
/// at or after any p. Equal elements may be split anywhere among the runs. Each round
/// takes the weighted median of the runs' middle elements as pivot, so the candidate
/// ranges shrink geometrically: O(log n) rounds of S binary searches.
template <class T, class Cmp>
std::vector<std::uint64_t> multiseq_split(std::span<const run_range<T>> runs, std::uint64_t rank,
                                          const Cmp& cmp) {
  const std::size_t s = runs.size();
  std::vector<std::uint64_t> lo(s), hi(s), lt(s), le(s);
  std::uint64_t base = 0; // elements certainly before the split (sum of lo - begin)
  for (std::size_t i = 0; i < s; ++i) {
    lo[i] = runs[i].begin;
    hi[i] = runs[i].end;
  }
  std::vector<algo::weighted_pivot<T>> cands;
  for (;;) {
    cands.clear();
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < s; ++i) {
      if (lo[i] < hi[i]) {
        cands.push_back({&runs[i].at(lo[i] + (hi[i] - lo[i]) / 2), hi[i] - lo[i]});
        total += hi[i] - lo[i];
      }
    }
    if (cands.empty()) return lo; // base == rank here
    const T v = *algo::weighted_median(cands, total, cmp);
    std::uint64_t n_lt = base, n_le = base;
    for (std::size_t i = 0; i < s; ++i) {
      lt[i] = lower_pos(runs[i], lo[i], hi[i], v, cmp);
      le[i] = upper_pos(runs[i], lt[i], hi[i], v, cmp);
      n_lt += lt[i] - lo[i];
      n_le += le[i] - lo[i];
    }
    if (rank < n_lt) {
      for (std::size_t i = 0; i < s; ++i) hi[i] = lt[i];
    } else if (rank > n_le) {
      for (std::size_t i = 0; i < s; ++i) lo[i] = le[i];
      base = n_le;
    } else {
      // Everything < v goes before the split, the elements == v fill up to rank.
      std::uint64_t need = rank - n_lt;
      for (std::size_t i = 0; i < s; ++i) {
        const std::uint64_t take = std::min(need, le[i] - lt[i]);
        lt[i] += take;
        need -= take;
      }
      return lt;
    }
  }
}

} // namespace flow::containers::pq
