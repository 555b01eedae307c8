#pragma once
// In-memory sorting of one run on all threads of a team.
//  - Orders with a key (sort_traits.hpp): most-significant-digit radix sort on the top 64
//    key bits, 8 bits per pass, starting at the highest bit that differs in the run
//    (constant leading bits cost nothing), out of place between the run and a scratch
//    array of the same size. The first pass is parallel (per-thread histograms, disjoint
//    scatter), then the 256 buckets are sorted by the threads in parallel; small buckets
//    finish with insertion sort / std::sort, equal keys of a non-total key by the order.
//    Elements larger than 32 bytes are sorted indirectly: (key, index) pairs are radix
//    sorted and the elements gathered into the scratch array afterwards. Where the order's
//    key goes on (a str's bytes past its first 8, the keys after it: deep_keyed_order),
//    pairs whose keys tie get the next word of the key and are radix sorted by it, and so
//    on while some element of the bucket has words left; only then does the order
//    compare them whole (so lines with long common prefixes cost radix passes, not
//    memcmp's).
//  - Other orders: each thread std::sorts a slice, then the slices are merged into the
//    scratch array by parallel_merge.
// sort_run returns whichever of the two arrays holds the result.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flow/algo/multiway_merge.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/algo/sort_traits.hpp"

namespace flow::algo {

/// A (key, index) pair of indirect sorting.
struct key_index {
  std::uint64_t key;
  std::uint32_t index;
};

template <class T, class Cmp> struct run_sort_traits {
  static constexpr bool keyed = keyed_order<Cmp, T>;
  /// Large elements are radix sorted by (key, index) pairs, then gathered.
  static constexpr bool indirect = keyed && sizeof(T) > 32;
  /// Memory beyond the run and its scratch array, per element.
  static constexpr std::size_t extra_bytes_per_element = indirect ? 2 * sizeof(key_index) : 0;
  /// Largest run indirect sorting can index.
  static constexpr std::uint64_t max_elements = indirect ? UINT32_MAX : UINT64_MAX;
};

namespace detail {

// The highest differing key bit + 1 over n items (0 if all keys are equal), on the
// team's threads (on this one without a team).
template <class Item, class KeyFn>
unsigned key_bits(const Item* a, std::size_t n, const KeyFn& key, thread_team* team) {
  if (n == 0) return 0;
  const std::uint64_t k0 = key(a[0]);
  const unsigned T = !team || n < (std::size_t{1} << 16) ? 1u : team->size();
  std::vector<std::uint64_t> diff(T, 0);
  auto body = [&](unsigned t) {
    std::uint64_t d = 0;
    const std::size_t b = n * t / T, e = n * (t + 1) / T;
    for (std::size_t i = b; i < e; ++i) d |= key(a[i]) ^ k0;
    diff[t] = d;
  };
  if (T == 1) {
    body(0);
  } else {
    team->run(body);
  }
  std::uint64_t d = 0;
  for (auto x : diff) d |= x;
  return static_cast<unsigned>(64 - std::countl_zero(d));
}

/// No key words past the first: msd_radix's Deepen for most orders.
struct no_deeper_key {
  template <class Item> unsigned operator()(Item*, std::size_t, unsigned, thread_team*) const noexcept { return 0; }
};

// MSD radix sort of Items by a 64-bit key. `src_is_data` tells whether src is the array
// that must hold the result (else the result is copied back there at the leaves).
// deepen(items, n, level, team) takes n items whose key words up to `level` (from 1 on)
// tie: it gives them the first word from `level` on in which one of them may differ and
// returns that word's level, or returns 0 if there is none (their keys then order nothing:
// the tie order decides).
template <class Item, class KeyFn, class TieLess, bool Total, class Deepen = no_deeper_key> struct msd_radix {
  KeyFn key;
  TieLess tie; // order of items with equal keys (unused if Total)
  Deepen deepen{};
  static constexpr std::size_t leaf = 32;

  bool less(const Item& a, const Item& b) const {
    const std::uint64_t ka = key(a), kb = key(b);
    if constexpr (Total) {
      return ka < kb;
    } else {
      return ka < kb || (ka == kb && tie(a, b));
    }
  }

  void small_sort(Item* a, std::size_t n) const {
    if (n <= 16) {
      for (std::size_t i = 1; i < n; ++i) {
        Item v = a[i];
        std::size_t j = i;
        while (j > 0 && less(v, a[j - 1])) {
          a[j] = a[j - 1];
          --j;
        }
        a[j] = v;
      }
    } else {
      std::sort(a, a + n, [this](const Item& x, const Item& y) { return less(x, y); });
    }
  }

  // All keys equal: only the tie order is left.
  void equal_keys(Item* a, std::size_t n) const {
    if constexpr (!Total) std::sort(a, a + n, tie);
    (void)a;
    (void)n;
  }

  static void copy(Item* to, const Item* from, std::size_t n) {
    std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), n * sizeof(Item));
  }

  // Digit width for a bucket of n items: about n/4 buckets (so the next level is mostly
  // small sorts), at most 11 bits (a 16 KiB histogram stays in L1), 8 for large buckets
  // (fewer scatter streams than TLB entries).
  static unsigned digit_bits(std::size_t n) {
    if (n >= (std::size_t{1} << 16)) return 8;
    const unsigned b = static_cast<unsigned>(std::bit_width(n / 4));
    return std::clamp(b, 4u, 11u);
  }

  // Sorts the n items at src by the key bits [0, hi) of key word `level`; dst is the same
  // range of the other array.
  void sort(Item* src, Item* dst, std::size_t n, unsigned hi, bool src_is_data, unsigned level = 0) const {
    std::vector<std::size_t> big_count; // only for digits wider than 8 bits
    for (;;) {
      if (n <= leaf) {
        small_sort(src, n);
        if (!src_is_data) copy(dst, src, n);
        return;
      }
      if (hi == 0) {
        if (const unsigned next = deepen(src, n, level + 1, nullptr)) {
          level = next;
          hi = key_bits(src, n, key, nullptr);
          continue;
        }
        equal_keys(src, n);
        if (!src_is_data) copy(dst, src, n);
        return;
      }
      const unsigned width = std::min(hi, digit_bits(n));
      const unsigned shift = hi - width;
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      std::size_t small_count[256];
      std::size_t* count = small_count;
      if (width > 8) {
        big_count.assign(mask + 1, 0);
        count = big_count.data();
      } else {
        std::fill(small_count, small_count + mask + 1, std::size_t{0});
      }
      for (std::size_t i = 0; i < n; ++i) ++count[(key(src[i]) >> shift) & mask];
      bool trivial = false;
      for (std::size_t b = 0; b <= mask; ++b) trivial |= count[b] == n;
      if (trivial) { // this digit is the same everywhere: next digit, no move
        hi = shift;
        continue;
      }
      // count[] becomes the start offsets, then the ends after the scatter
      std::size_t s = 0;
      for (std::size_t b = 0; b <= mask; ++b) {
        const std::size_t c = count[b];
        count[b] = s;
        s += c;
      }
      for (std::size_t i = 0; i < n; ++i) dst[count[(key(src[i]) >> shift) & mask]++] = src[i];
      std::size_t begin = 0;
      for (std::size_t b = 0; b <= mask; ++b) {
        const std::size_t end = count[b];
        if (end > begin) sort(dst + begin, src + begin, end - begin, shift, !src_is_data, level);
        begin = end;
      }
      return;
    }
  }

  // The same with the first digit(s) split over the team's threads.
  void parallel_sort(Item* src, Item* dst, std::size_t n, unsigned hi, bool src_is_data,
                     thread_team& team, unsigned level = 0) const {
    const unsigned T = team.size();
    if (T == 1 || n < (std::size_t{1} << 16)) {
      sort(src, dst, n, hi, src_is_data, level);
      return;
    }
    std::vector<std::size_t> counts;
    unsigned shift = 0;
    std::uint64_t mask = 0;
    for (;;) {
      if (hi == 0) {
        if (const unsigned next = deepen(src, n, level + 1, &team)) {
          level = next;
          hi = key_bits(src, n, key, &team);
          continue;
        }
        equal_keys(src, n);
        if (!src_is_data) copy(dst, src, n);
        return;
      }
      shift = hi > 8 ? hi - 8 : 0;
      mask = (std::uint64_t{1} << (hi - shift)) - 1;
      counts.assign(std::size_t{T} * 256, 0);
      team.run([&](unsigned t) {
        std::size_t* c = &counts[std::size_t{t} * 256];
        const std::size_t b = n * t / T, e = n * (t + 1) / T;
        for (std::size_t i = b; i < e; ++i) ++c[(key(src[i]) >> shift) & mask];
      });
      bool trivial = false;
      for (std::size_t b = 0; b <= mask; ++b) {
        std::size_t sum = 0;
        for (unsigned t = 0; t < T; ++t) sum += counts[std::size_t{t} * 256 + b];
        trivial |= sum == n;
      }
      if (!trivial) break;
      hi = shift;
    }
    // offsets: bucket-major, thread-minor
    std::vector<std::size_t> offs(std::size_t{T} * 256);
    std::vector<std::size_t> bucket_begin(257, 0);
    std::size_t s = 0;
    for (std::size_t b = 0; b < 256; ++b) {
      bucket_begin[b] = s;
      for (unsigned t = 0; t < T; ++t) {
        offs[std::size_t{t} * 256 + b] = s;
        s += counts[std::size_t{t} * 256 + b];
      }
    }
    bucket_begin[256] = s;
    team.run([&](unsigned t) {
      std::size_t* o = &offs[std::size_t{t} * 256];
      const std::size_t b = n * t / T, e = n * (t + 1) / T;
      for (std::size_t i = b; i < e; ++i) dst[o[(key(src[i]) >> shift) & mask]++] = src[i];
    });
    // buckets: huge ones recursively in parallel, the others spread over the threads
    std::vector<std::size_t> rest;
    for (std::size_t b = 0; b < 256; ++b) {
      const std::size_t len = bucket_begin[b + 1] - bucket_begin[b];
      if (len == 0) continue;
      if (len > n / 4 && len >= (std::size_t{1} << 16)) {
        parallel_sort(dst + bucket_begin[b], src + bucket_begin[b], len, shift, !src_is_data, team, level);
      } else {
        rest.push_back(b);
      }
    }
    std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
      return bucket_begin[a + 1] - bucket_begin[a] > bucket_begin[b + 1] - bucket_begin[b];
    });
    std::atomic<std::size_t> next{0};
    team.run([&](unsigned) {
      for (;;) {
        const std::size_t j = next.fetch_add(1, std::memory_order_relaxed);
        if (j >= rest.size()) return;
        const std::size_t b = rest[j];
        const std::size_t begin = bucket_begin[b], len = bucket_begin[b + 1] - begin;
        sort(dst + begin, src + begin, len, shift, !src_is_data, level);
      }
    });
  }
};

} // namespace detail

/// Indirect sorting's first half: sorts (key, index) pairs of data[0, n) (in `extra`, 2n
/// pairs of room) on all threads and returns the n sorted pairs: position j of the
/// sorted order holds data[result[j].index].
template <class T, class Cmp>
const key_index* sort_keys_indirect(const T* data, std::size_t n, const Cmp& cmp, thread_team& team, void* extra) {
  using K = key64<Cmp, T>;
  const fast_less<T, Cmp> full{cmp};
  key_index* p = static_cast<key_index*>(extra);
  key_index* q = p + n;
  const unsigned T_ = n < (std::size_t{1} << 16) ? 1u : team.size();
  auto fill = [&](unsigned t) {
    const std::size_t b = n * t / T_, e = n * (t + 1) / T_;
    for (std::size_t i = b; i < e; ++i) p[i] = key_index{K::get(data[i]), static_cast<std::uint32_t>(i)};
  };
  if (T_ == 1) fill(0); else team.run(fill);
  auto key = [](const key_index& x) { return x.key; };
  auto tie = [data, full](const key_index& a, const key_index& b) { return full(data[a.index], data[b.index]); };
  const unsigned hi = detail::key_bits(p, n, key, &team);
  if constexpr (deep_keyed_order<Cmp, T>) {
    // Pairs whose key words tie up to `level` get the first word from `level` on where
    // one of their elements may differ, in place of their key (no one reads the old one
    // again). One pass takes the word at `level` and finds that first word; a second
    // one is needed only where it lies further on (every element's word at `level` the
    // same, so the keys written in the first pass order nothing if none is left).
    auto deepen = [data](key_index* a, std::size_t m, unsigned level, thread_team* on) -> unsigned {
      const unsigned Tm = !on || m < (std::size_t{1} << 16) ? 1u : on->size();
      std::vector<unsigned> nexts(Tm, Cmp::key_levels);
      auto rekey = [&](unsigned at, bool find_next) {
        return [&, at, find_next](unsigned t) {
          for (std::size_t i = m * t / Tm, e = m * (t + 1) / Tm; i < e; ++i) {
            const T& x = data[a[i].index];
            a[i].key = Cmp::key_at(x, at);
            if (find_next) nexts[t] = std::min(nexts[t], Cmp::key_next(x, at));
          }
        };
      };
      auto on_threads = [&](auto&& body) {
        if (Tm == 1) body(0); else on->run(body);
      };
      on_threads(rekey(level, true));
      const unsigned at = *std::min_element(nexts.begin(), nexts.end());
      if (at >= Cmp::key_levels) return 0;
      if (at != level) on_threads(rekey(at, false));
      return at;
    };
    detail::msd_radix<key_index, decltype(key), decltype(tie), K::total, decltype(deepen)> radix{key, tie, deepen};
    radix.parallel_sort(p, q, n, hi, true, team);
  } else {
    detail::msd_radix<key_index, decltype(key), decltype(tie), K::total> radix{key, tie};
    radix.parallel_sort(p, q, n, hi, true, team);
  }
  return p;
}

/// out[j] = data[order[j].index] for j < n.
template <class T> void gather_elements(T* out, const T* data, const key_index* order, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    std::memcpy(static_cast<void*>(out + j), static_cast<const void*>(data + order[j].index), sizeof(T));
  }
}

/// Sorts data[0, n) under cmp using every thread of `team`. `scratch` has room for n
/// elements; `extra` for run_sort_traits<T, Cmp>::extra_bytes_per_element * n bytes
/// (nullptr when that is 0). Returns data or scratch: the array now holding the sorted
/// elements (the other one holds garbage).
template <class T, class Cmp>
T* sort_run(T* data, T* scratch, std::size_t n, const Cmp& cmp, thread_team& team,
            void* extra = nullptr) {
  using traits = run_sort_traits<T, Cmp>;
  if (n <= 1) return data;
  if constexpr (traits::keyed) {
    using K = key64<Cmp, T>;
    if constexpr (!traits::indirect) {
      const fast_less<T, Cmp> full{cmp};
      auto key = [](const T& v) { return K::get(v); };
      detail::msd_radix<T, decltype(key), fast_less<T, Cmp>, K::total> radix{key, full};
      const unsigned hi = detail::key_bits(data, n, key, &team);
      radix.parallel_sort(data, scratch, n, hi, true, team);
      return data;
    } else {
      const key_index* p = sort_keys_indirect<T, Cmp>(data, n, cmp, team, extra);
      const unsigned T_ = n < (std::size_t{1} << 16) ? 1u : team.size();
      auto gather = [&](unsigned t) {
        gather_elements(scratch + n * t / T_, data, p + n * t / T_, n * (t + 1) / T_ - n * t / T_);
      };
      if (T_ == 1) gather(0); else team.run(gather);
      return scratch;
    }
  } else {
    (void)extra;
    const unsigned T_ = team.size();
    if (T_ == 1 || n < (std::size_t{1} << 14)) {
      std::sort(data, data + n, cmp);
      return data;
    }
    team.run([&](unsigned t) {
      std::sort(data + n * t / T_, data + n * (t + 1) / T_, cmp);
    });
    std::vector<segment<T>> segs(T_);
    for (unsigned t = 0; t < T_; ++t) segs[t] = {data + n * t / T_, data + n * (t + 1) / T_};
    parallel_merge<T, Cmp>(segs, scratch, cmp, team, 0);
    return scratch;
  }
}

} // namespace flow::algo
