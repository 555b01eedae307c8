#pragma once
// In-memory k-way merging of sorted segments, the inner loop of the runs merger, and
// exact multiway splitting, which lets several threads merge disjoint parts of the same
// output at once.
//
//   std::vector<flow::algo::segment<T>> segs = ...;      // sorted [begin, end) ranges
//   T* end = flow::algo::merge_segments(segs, out, less); // sequential
//   flow::algo::parallel_merge(segs, out, less, team);    // on every thread of a team
//
// Orders with a total 64-bit key (sort_traits.hpp) merge with a branch-free loser tree
// over (key, segment) pairs; other orders use a loser tree of element pointers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "flow/algo/loser_tree.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/algo/sort_traits.hpp"
#include "flow/algo/weighted_median.hpp"

namespace flow::algo {

template <class T> struct segment {
  const T* begin = nullptr;
  const T* end = nullptr;
  std::size_t size() const noexcept { return static_cast<std::size_t>(end - begin); }
  bool empty() const noexcept { return begin == end; }
};

namespace detail {

template <class T> inline void copy_elements(T* out, const T* in, std::size_t n) {
  if (n) std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), n * sizeof(T));
}

// Two sorted ranges.
template <class T, class Less>
T* merge2(const T* a, const T* ae, const T* b, const T* be, T* out, const Less& less) {
  if (a != ae && b != be) {
    for (;;) {
      if (less(*b, *a)) {
        *out++ = *b++;
        if (b == be) break;
      } else {
        *out++ = *a++;
        if (a == ae) break;
      }
    }
  }
  copy_elements(out, a, static_cast<std::size_t>(ae - a));
  out += ae - a;
  copy_elements(out, b, static_cast<std::size_t>(be - b));
  return out + (be - b);
}

// Loser tree over (64-bit key, segment) packed into one 128-bit word: the comparison of
// two players is one 128-bit compare and the replay is branch-free. Exhausted players get
// the largest key and a flag bit above the segment number, so they lose every game even
// against real keys equal to UINT64_MAX. For non-total keys, equal keys are decided by the
// full order (a rare, predictable branch), and equal elements by the segment number.
template <class T, class Cmp>
T* merge_keyed(std::span<const segment<T>> segs, T* out, std::size_t total, const Cmp& cmp) {
  using K = key64<Cmp, T>;
  using u128 = unsigned __int128;
  constexpr std::uint32_t exhausted_flag = 0x80000000u;
  const std::size_t m = segs.size();
  std::size_t leaves = 1;
  while (leaves < m) leaves <<= 1;
  std::vector<const T*> cur(leaves), end(leaves);
  std::vector<u128> tree(leaves);
  auto make = [&](std::size_t s) -> u128 {
    if (cur[s] == end[s]) {
      return (static_cast<u128>(UINT64_MAX) << 32) | (exhausted_flag | static_cast<std::uint32_t>(s));
    }
    return (static_cast<u128>(K::get(*cur[s])) << 32) | static_cast<std::uint32_t>(s);
  };
  const fast_less<T, Cmp> less{cmp};
  // a beats b?
  auto beats = [&](u128 a, u128 b) -> bool {
    if constexpr (K::total) {
      return a < b;
    } else {
      bool r = a < b;
      if ((a >> 32) == (b >> 32)) {
        const auto sa = static_cast<std::uint32_t>(a), sb = static_cast<std::uint32_t>(b);
        if (!((sa | sb) & exhausted_flag)) r = less(*cur[sa], *cur[sb]) || (sa < sb && !less(*cur[sb], *cur[sa]));
      }
      return r;
    }
  };
  for (std::size_t s = 0; s < leaves; ++s) {
    if (s < m) {
      cur[s] = segs[s].begin;
      end[s] = segs[s].end;
    } else {
      cur[s] = end[s] = nullptr;
    }
  }
  // initial tournament
  std::vector<u128> win(2 * leaves);
  for (std::size_t s = 0; s < leaves; ++s) win[leaves + s] = make(s);
  play_tournament(win, tree, leaves, beats);
  u128 w = win[1];
  for (std::size_t i = 0; i < total; ++i) {
    const auto s = static_cast<std::uint32_t>(w) & ~exhausted_flag;
    *out++ = *cur[s]++;
    __builtin_prefetch(cur[s] + 256 / sizeof(T)); // the segment streams: keep them in cache
    u128 c = make(s);
    for (std::size_t q = (leaves + s) >> 1; q >= 1; q >>= 1) {
      const u128 o = tree[q];
      const bool sw = beats(o, c);
      tree[q] = sw ? c : o;
      c = sw ? o : c;
    }
    w = c;
  }
  return out;
}

// Loser tree of element pointers under the order (any T, any Cmp); equal elements are
// taken by segment number.
template <class T, class Less>
T* merge_generic(std::span<const segment<T>> segs, T* out, std::size_t total, const Less& less) {
  struct node {
    const T* p;
    std::uint32_t seg;
    bool exhausted;
  };
  const std::size_t m = segs.size();
  std::size_t leaves = 1;
  while (leaves < m) leaves <<= 1;
  std::vector<const T*> end(leaves, nullptr);
  std::vector<node> tree(leaves);
  auto beats = [&](const node& a, const node& b) {
    return !a.exhausted && (b.exhausted || less(*a.p, *b.p) || (a.seg < b.seg && !less(*b.p, *a.p)));
  };
  std::vector<node> win(2 * leaves);
  for (std::size_t s = 0; s < leaves; ++s) {
    const T* b = s < m ? segs[s].begin : nullptr;
    end[s] = s < m ? segs[s].end : nullptr;
    win[leaves + s] = node{b, static_cast<std::uint32_t>(s), b == end[s]};
  }
  play_tournament(win, tree, leaves, beats);
  node c = win[1];
  for (std::size_t i = 0; i < total; ++i) {
    const std::uint32_t s = c.seg;
    *out++ = *c.p;
    ++c.p;
    c.exhausted = c.p == end[s];
    for (std::size_t q = (leaves + s) >> 1; q >= 1; q >>= 1) {
      if (beats(tree[q], c)) std::swap(tree[q], c);
    }
  }
  return out;
}

} // namespace detail

/// Merges all elements of the sorted segments into `out` (which must not overlap them);
/// returns the end of the output. Equal elements come in segment order (stable), as
/// multiway_split takes them: a merge cut into parts on several threads puts out what
/// one thread does, and a combining merge folds equal elements in the same order — a
/// float sum's bits — at every thread count.
template <class T, class Cmp>
T* merge_segments(std::span<const segment<T>> segs, T* out, const Cmp& cmp) {
  std::size_t total = 0, nonempty = 0;
  for (const auto& s : segs) {
    total += s.size();
    nonempty += !s.empty();
  }
  if (nonempty == 0) return out;
  if (nonempty == 1) {
    for (const auto& s : segs) {
      if (!s.empty()) {
        detail::copy_elements(out, s.begin, s.size());
        return out + s.size();
      }
    }
  }
  const fast_less<T, Cmp> less{cmp};
  if (nonempty == 2) {
    const segment<T>* a = nullptr;
    const segment<T>* b = nullptr;
    for (const auto& s : segs) {
      if (s.empty()) continue;
      (a ? b : a) = &s;
    }
    return detail::merge2(a->begin, a->end, b->begin, b->end, out, less);
  }
  if constexpr (keyed_order<Cmp, T>) {
    return detail::merge_keyed<T, Cmp>(segs, out, total, cmp);
  } else {
    return detail::merge_generic<T>(segs, out, total, less);
  }
}

/// Exact multiway split: writes to cut[i] how many elements of segs[i] belong to the
/// first `rank` elements of the merged order (sum of cut = rank; every element taken is
/// <= every element left). Ties are taken in segment order, so splits at growing ranks
/// are nested. O(k log^2 n) comparisons.
template <class T, class Cmp>
void multiway_split(std::span<const segment<T>> segs, std::size_t rank, const Cmp& cmp,
                    std::size_t* cut) {
  const fast_less<T, Cmp> less{cmp};
  const std::size_t k = segs.size();
  std::vector<std::size_t> lo(k, 0), hi(k), lb(k), ub(k);
  std::size_t sum_lo = 0, sum_hi = 0;
  for (std::size_t i = 0; i < k; ++i) {
    hi[i] = segs[i].size();
    sum_hi += hi[i];
  }
  if (rank >= sum_hi) {
    for (std::size_t i = 0; i < k; ++i) cut[i] = hi[i];
    return;
  }
  std::vector<weighted_pivot<T>> cands;
  cands.reserve(k);
  for (;;) {
    if (sum_lo == rank) {
      for (std::size_t i = 0; i < k; ++i) cut[i] = lo[i];
      return;
    }
    if (sum_hi == rank) {
      for (std::size_t i = 0; i < k; ++i) cut[i] = hi[i];
      return;
    }
    // pivot: weighted median of the middles of the open ranges
    cands.clear();
    std::size_t weight = 0;
    for (std::size_t i = 0; i < k; ++i) {
      if (lo[i] < hi[i]) {
        cands.push_back({segs[i].begin + (lo[i] + hi[i]) / 2, hi[i] - lo[i]});
        weight += hi[i] - lo[i];
      }
    }
    const T pv = *weighted_median(cands, weight, less);
    std::size_t L = 0, U = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const T* b = segs[i].begin;
      lb[i] = static_cast<std::size_t>(std::lower_bound(b + lo[i], b + hi[i], pv, less) - b);
      ub[i] = static_cast<std::size_t>(std::upper_bound(b + lb[i], b + hi[i], pv, less) - b);
      L += lb[i];
      U += ub[i];
    }
    if (rank < L) {
      hi = lb;
      sum_hi = L;
    } else if (rank > U) {
      lo = ub;
      sum_lo = U;
    } else {
      std::size_t need = rank - L;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t take = std::min(need, ub[i] - lb[i]);
        cut[i] = lb[i] + take;
        need -= take;
      }
      return;
    }
  }
}

/// Merges the segments into `out` using the first `threads` threads of `team` (0: all):
/// each takes an equal share of the output, found by multiway_split. Small inputs merge
/// on the caller.
template <class T, class Cmp>
T* parallel_merge(std::span<const segment<T>> segs, T* out, const Cmp& cmp, thread_team& team,
                  std::size_t min_parallel = 4096, unsigned threads = 0) {
  std::size_t total = 0;
  for (const auto& s : segs) total += s.size();
  if (threads == 0 || threads > team.size()) threads = team.size();
  if (threads == 1 || total < min_parallel) return merge_segments<T, Cmp>(segs, out, cmp);
  const std::size_t k = segs.size();
  std::vector<std::size_t> cuts((threads + 1) * k);
  for (std::size_t i = 0; i < k; ++i) {
    cuts[i] = 0;
    cuts[threads * k + i] = segs[i].size();
  }
  team.run([&](unsigned t) {
    if (t + 1 < threads) multiway_split<T, Cmp>(segs, total * (t + 1) / threads, cmp, &cuts[(t + 1) * k]);
  });
  team.run([&](unsigned t) {
    if (t >= threads) return;
    std::vector<segment<T>> part(k);
    for (std::size_t i = 0; i < k; ++i) {
      part[i].begin = segs[i].begin + cuts[t * k + i];
      part[i].end = segs[i].begin + cuts[(t + 1) * k + i];
    }
    merge_segments<T, Cmp>(part, out + total * t / threads, cmp);
  });
  return out + total;
}

} // namespace flow::algo
