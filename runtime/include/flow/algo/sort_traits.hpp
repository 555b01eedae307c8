#pragma once
// What the sorter needs from an order (a comparator type), and what it may use if the
// order offers more. The compiler generates one such type per `order` declaration.
//
// Required (STXXL's comparator concept):
//   struct edge_order {
//     bool operator()(const Edge& a, const Edge& b) const; // strict weak order "a < b"
//     static Edge min_value();  // <= every element (a sentinel for merging)
//     static Edge max_value();  // >= every element
//   };
//
// Optional, for key-based (radix) run formation and faster merging:
//   using key_type = std::uint64_t;            // an unsigned integer type of 8..64 bits,
//                                               // or unsigned __int128
//   static key_type key(const Edge& e);         // monotone: key(a) < key(b) implies a < b
//   static constexpr bool key_is_total = true;  // key(a) == key(b) implies a ~ b; when
//                                               // false (or absent), equal keys are
//                                               // ordered by operator()
// The key may be a prefix of the order (e.g. the first 8 of 10 key bytes, big-endian
// packed: then key_is_total = false), or all of it (`(u64(src) << 32) | dst` for the
// order (src asc, dst asc): key_is_total = true). Descending fields are complemented.
//
// Optional, for keys that are a prefix of the order (key_is_total false), the words of
// the order that follow the key (a str's bytes past its first 8 and its length, then the
// keys after it, as DuckDB's normalised keys go on):
//   static constexpr unsigned key_levels = L;   // the words: key's top 64 bits, then L-1
//   static std::uint64_t key_at(const Edge& e, unsigned level); // word `level` (< L);
//                                               // level 0: key's top 64 bits; for elements
//                                               // whose words before `level` are equal, a
//                                               // smaller word at `level` implies a < b
//   static unsigned key_next(const Edge& e, unsigned level); // the first level >= `level`
//                                               // where e's word may differ from others'
//                                               // (before it e's words are those of an
//                                               // element without bytes there; L: none,
//                                               // and past L only operator() tells)
// Run formation radix sorts elements whose first words tie by the next word instead of
// comparing them whole.
//
// Elements must be trivially copyable (they move as raw bytes to and from disk).
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace flow::algo {

/// An order on T usable by the sorter.
template <class Cmp, class T>
concept sort_order = std::is_trivially_copyable_v<T> && requires(const Cmp& c, const T& a) {
  { c(a, a) } -> std::convertible_to<bool>;
  { Cmp::min_value() } -> std::convertible_to<T>;
  { Cmp::max_value() } -> std::convertible_to<T>;
};

template <class K>
concept radix_key = std::is_same_v<K, unsigned char> || std::is_same_v<K, unsigned short> ||
                    std::is_same_v<K, unsigned int> || std::is_same_v<K, unsigned long> ||
                    std::is_same_v<K, unsigned long long> || std::is_same_v<K, unsigned __int128>;

/// An order that also provides a radix key of T.
template <class Cmp, class T>
concept keyed_order = sort_order<Cmp, T> && requires(const T& a) {
  typename Cmp::key_type;
  requires radix_key<typename Cmp::key_type>;
  { Cmp::key(a) } -> std::same_as<typename Cmp::key_type>;
};

template <class Cmp> constexpr bool key_is_total_v() {
  if constexpr (requires { Cmp::key_is_total; }) {
    return static_cast<bool>(Cmp::key_is_total);
  } else {
    return false;
  }
}

/// The top 64 bits of an order's key (the part radix sorting and merging look at first),
/// and whether comparing those 64 bits decides the order completely.
template <class Cmp, class T> struct key64 {
  using key_type = typename Cmp::key_type;
  static constexpr bool wide = sizeof(key_type) > 8;
  /// key64 equality implies equivalence.
  static constexpr bool total = key_is_total_v<Cmp>() && !wide;
  static std::uint64_t get(const T& v) {
    if constexpr (wide) {
      return static_cast<std::uint64_t>(Cmp::key(v) >> 64);
    } else {
      return static_cast<std::uint64_t>(Cmp::key(v));
    }
  }
};

/// A keyed order whose key goes on past its first 64 bits (key_at, key_next, key_levels).
template <class Cmp, class T>
concept deep_keyed_order = keyed_order<Cmp, T> && requires(const T& a, unsigned level) {
  { Cmp::key_at(a, level) } -> std::same_as<std::uint64_t>;
  { Cmp::key_next(a, level) } -> std::same_as<unsigned>;
  { Cmp::key_levels } -> std::convertible_to<unsigned>;
};

/// Comparator adaptor: the order of Cmp on elements, with a cheaper key test first when
/// the order has a key. Used by merging.
template <class T, class Cmp> struct fast_less {
  Cmp cmp;
  bool operator()(const T& a, const T& b) const {
    if constexpr (keyed_order<Cmp, T>) {
      using K = typename Cmp::key_type;
      const K ka = Cmp::key(a), kb = Cmp::key(b);
      if constexpr (key_is_total_v<Cmp>()) {
        return ka < kb;
      } else {
        if (ka != kb) return ka < kb;
        return cmp(a, b);
      }
    } else {
      return cmp(a, b);
    }
  }
};

} // namespace flow::algo
