#pragma once
// Sorting the insertion heap's items into a run. An LSD radix sort with 11-bit digits
// (6 passes for 64-bit keys instead of 8: about a fifth faster on 65536 random keys than
// 8-bit digits; its counts, 48 KiB, stay in the L2 cache), skipping digits where all
// items agree (ascending keys of a time-forward loop differ
// only in their low bytes), for
//   - unsigned integer items under std::less / std::greater (the orders of C++ users),
//   - orders with a radix key of at most 64 bits (algo/sort_traits.hpp: every order a
//     script declares, `asc` and `desc` of a scalar queue included) and items of at most
//     32 bytes; a key that is not total (key_is_total false) leaves runs of equal keys,
//     which are then put in order by the comparator;
// otherwise std::sort. Plus the branch-free two-way merge that joins the halves sorted
// on two cores.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

#include "flow/algo/sort_traits.hpp"

namespace flow::containers::pq {

/// The radix key of items under Cmp, if the queue sorts them by radix: `get(v)` is an
/// unsigned integer with get(a) < get(b) implying cmp(a, b), and `total` says whether
/// equal keys imply equivalent items.
template <class T, class Cmp, class = void> struct radix_key {
  static constexpr bool usable = false;
};
template <class T, class Cmp>
  requires(std::is_unsigned_v<T> && std::is_integral_v<T> && !std::is_same_v<T, bool> &&
           (std::is_same_v<Cmp, std::less<T>> || std::is_same_v<Cmp, std::less<>> ||
            std::is_same_v<Cmp, std::greater<T>> || std::is_same_v<Cmp, std::greater<>>))
struct radix_key<T, Cmp, void> {
  static constexpr bool usable = true;
  static constexpr bool total = true;
  static constexpr bool descending = std::is_same_v<Cmp, std::greater<T>> || std::is_same_v<Cmp, std::greater<>>;
  using type = T;
  static T get(const T& v) { return descending ? static_cast<T>(~v) : v; }
};
template <class T, class Cmp>
  requires(algo::keyed_order<Cmp, T> && sizeof(typename Cmp::key_type) <= 8 && sizeof(T) <= 32 &&
           !(std::is_same_v<Cmp, std::less<T>> || std::is_same_v<Cmp, std::greater<T>>))
struct radix_key<T, Cmp, void> {
  static constexpr bool usable = true;
  static constexpr bool total = algo::key_is_total_v<Cmp>();
  using type = typename Cmp::key_type;
  static type get(const T& v) { return Cmp::key(v); }
};

template <class T, class Cmp> inline constexpr bool radix_sortable = radix_key<T, Cmp>::usable;

/// Sorts [first, first+n) under cmp; `scratch` (n items) is used by the radix sort.
template <class T, class Cmp> void sort_run(T* first, std::size_t n, T* scratch, const Cmp& cmp) {
  // Time-forward and ascending pushes often arrive sorted: one compare per item to see it
  // (random items stop the check after a few).
  if (std::is_sorted(first, first + n, cmp)) return;
  if constexpr (radix_sortable<T, Cmp>) {
    using key = radix_key<T, Cmp>;
    using K = typename key::type;
    if (n < 64 || n > std::numeric_limits<std::uint32_t>::max()) { // small, or too many for the counts
      std::sort(first, first + n, cmp);
      return;
    }
    constexpr unsigned bits = 11, radix = 1u << bits, mask = radix - 1;
    constexpr unsigned digits = (8 * sizeof(K) + bits - 1) / bits;
    std::uint32_t count[digits][radix] = {};
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t k = key::get(first[i]);
      for (unsigned d = 0; d < digits; ++d) ++count[d][(k >> (bits * d)) & mask];
    }
    T* src = first;
    T* dst = scratch;
    for (unsigned d = 0; d < digits; ++d) {
      std::uint32_t* c = count[d];
      bool trivial = false;
      for (unsigned b = 0; b < radix; ++b) {
        if (c[b] == n) trivial = true;
        if (c[b]) break;
      }
      if (trivial) continue; // every item has the same digit here
      std::uint32_t sum = 0;
      for (unsigned b = 0; b < radix; ++b) {
        const std::uint32_t t = c[b];
        c[b] = sum;
        sum += t;
      }
      for (std::size_t i = 0; i < n; ++i) {
        const T& v = src[i];
        const std::uint64_t k = key::get(v);
        std::memcpy(static_cast<void*>(dst + c[(k >> (bits * d)) & mask]++), &v, sizeof(T));
      }
      std::swap(src, dst);
    }
    if (src != first) std::memcpy(static_cast<void*>(first), src, n * sizeof(T));
    if constexpr (!key::total) { // items with equal keys: by the comparator
      for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && key::get(first[j]) == key::get(first[i])) ++j;
        if (j - i > 1) std::sort(first + i, first + j, cmp);
        i = j;
      }
    }
  } else {
    (void)scratch;
    std::sort(first, first + n, cmp);
  }
}

/// Two-way merge cursor over sorted [a, a_end) and [b, b_end): writes the next n items
/// to out (n <= items left). Branch-free.
template <class T, class Cmp> struct merge2 {
  const T* a;
  const T* a_end;
  const T* b;
  const T* b_end;

  void take(T* out, std::size_t n, const Cmp& cmp) {
    while (n > 0) {
      if (a == a_end) {
        std::memcpy(out, b, n * sizeof(T));
        b += n;
        return;
      }
      if (b == b_end) {
        std::memcpy(out, a, n * sizeof(T));
        a += n;
        return;
      }
      // Both non-empty: this many steps cannot exhaust either side.
      std::size_t m = std::min<std::size_t>(
          n, static_cast<std::size_t>(std::min(a_end - a, b_end - b)));
      n -= m;
      if constexpr (std::is_scalar_v<T>) {
        while (m--) {
          const T x = *a, y = *b;
          const bool tb = cmp(y, x);
          *out++ = tb ? y : x;
          b += tb;
          a += !tb;
        }
      } else { // a record: the side chosen by a select of pointers, no branch either
        while (m--) {
          const bool tb = cmp(*b, *a);
          *out++ = *(tb ? b : a);
          b += tb;
          a += !tb;
        }
      }
    }
  }
};

} // namespace flow::containers::pq
