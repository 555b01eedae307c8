#pragma once
// Early combining for the sort path of `reduce` (flow/stream/reduce.hpp): runs_creator and
// runs_merger take an optional third template parameter Combine. With the default,
// no_combine, nothing here is used and the sort compiles as before. With a combiner,
// elements equal under the sort order Cmp (!cmp(a, b) && !cmp(b, a): "same key") are
// folded into one with combine(a, b) -> T wherever they meet: in each sorted run before it
// is written or kept, in intermediate merge passes and in the merged output. Combine must
// be associative and commutative (the order in which equal elements meet is not fixed)
// and keep the key: combine(a, b) is equal to a and b under Cmp.
#include <cstddef>
#include <type_traits>
#include <utility>

#include "flow/algo/sort_traits.hpp"

namespace flow::algo {

/// The default Combine: no combining (plain sorting).
struct no_combine {};

template <class Combine> inline constexpr bool combining_v = !std::is_same_v<Combine, no_combine>;

/// Equality under a sort order: !cmp(a, b) && !cmp(b, a), by the key alone where the
/// order's key decides it completely.
template <class T, class Cmp> struct equal_in_order {
  Cmp cmp{};
  bool operator()(const T& a, const T& b) const {
    if constexpr (keyed_order<Cmp, T> && key_is_total_v<Cmp>()) {
      return Cmp::key(a) == Cmp::key(b);
    } else {
      const fast_less<T, Cmp> less{cmp};
      return !less(a, b) && !less(b, a);
    }
  }
};

namespace detail {

/// Folds adjacent equal elements of data[0, n) in place; returns the new length.
template <class T, class Same, class Combine>
std::size_t combine_adjacent(T* data, std::size_t n, const Same& same, Combine& combine) {
  if (n == 0) return 0;
  std::size_t j = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (same(data[j], data[i])) {
      data[j] = combine(std::as_const(data[j]), std::as_const(data[i]));
    } else if (++j != i) {
      data[j] = data[i];
    }
  }
  return j + 1;
}

/// Combining a sorted stream that arrives in batches: the last element of a batch is held
/// back (its key may go on in the next batch) and put in front of the next batch.
template <class T> struct carry {
  T value{};
  bool has = false;
};

/// The next folded batch into out (room for cap + 1 elements, cap >= 1) from
/// next(T* to, std::size_t cap) -> elements written, 0 at the end of the input. Returns
/// how many elements of out are final (0: the stream is done); the last key seen stays
/// in `c` until the next call.
template <class T, class Same, class Combine, class Next>
std::size_t next_folded(T* out, std::size_t cap, carry<T>& c, const Same& same, Combine& combine, Next&& next) {
  std::size_t m = 0;
  if (c.has) {
    out[0] = c.value;
    c.has = false;
    m = 1;
  }
  for (;;) {
    const std::size_t n = next(out + m, cap + 1 - m);
    if (n == 0) return m; // the input is done: what is held is final
    m = combine_adjacent(out, m + n, same, combine);
    if (m > 1) {
      c.value = out[m - 1];
      c.has = true;
      return m - 1;
    }
    // one key so far: read on
  }
}

} // namespace detail
} // namespace flow::algo
