#pragma once
// The priority queue's multiway merger: a loser tree (Knuth's tournament tree of
// losers) over S sorted sources whose elements arrive in *segments* (an internal
// array's chunks, an external array's blocks, a plain range). Not the sorter's
// algo/loser_tree: the queue needs sources of different and unknown lengths that end at
// any time (no sentinel values: a user's item may equal any sentinel), a merge that
// stops after exactly n outputs and resumes later (a block or chunk of output at a time,
// a deletion buffer's worth, a bulk), and the cursor of every source afterwards (what
// was consumed). The comparator is never asked about a value that is not an item.
//
// Only sources with elements are leaves of the tree: the k leaves of k live sources sit
// at positions k..2k-1 of a heap-shaped tree (Knuth's layout, any k), so a match is
// one comparison of two keys, with no flag for "exhausted". When a source runs dry
// (once per source and merge) the tree is built again over the sources left, O(k).
//
// Per output element: one copy out, one ++ on the winner's cursor, one end-of-segment
// test, and about log2(k) matches on the way up. Nodes keep a copy of their key (no
// pointer chasing); the match is written as selects so small keys (scalars, and records
// of up to 16 bytes without padding) compile to conditional moves.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace flow::containers::pq {

namespace detail {
template <std::size_t N> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = std::uint64_t; };
template <> struct uint_of<16> { using type = unsigned __int128; };

/// c ? a : b with masks: compilers turn `?:` on unpredictable conditions into branches.
template <class T> inline T select(bool c, T a, T b) noexcept {
  using U = typename uint_of<sizeof(T)>::type;
  const U m = static_cast<U>(U(0) - static_cast<U>(c));
  const U ua = std::bit_cast<U>(a), ub = std::bit_cast<U>(b);
  return std::bit_cast<T>(static_cast<U>((ua & m) | (ub & static_cast<U>(~m))));
}
} // namespace detail

template <class T> struct segment {
  const T* cur = nullptr;
  const T* end = nullptr;
};

template <class T, class Cmp> class loser_tree {
public:
  explicit loser_tree(Cmp cmp = Cmp()) : cmp_(cmp) {}

  /// Starts a merge of `sources.size()` (>= 1) sources with these first segments.
  /// `next(i, seg)` is called whenever source i's segment is used up; it sets the next
  /// segment and returns true, or returns false when source i has no more elements.
  template <class Next> void start(std::span<const segment<T>> sources, Next& next) {
    const std::size_t s = sources.size();
    cursor_.assign(sources.begin(), sources.end());
    leaf_.clear();
    src_.clear();
    for (std::size_t i = 0; i < s; ++i) {
      if (cursor_[i].cur == cursor_[i].end && !next(i, cursor_[i])) {
        cursor_[i] = {};
        continue;
      }
      leaf_.push_back(cursor_[i]);
      src_.push_back(static_cast<std::uint32_t>(i));
    }
    build();
  }

  /// True when every source is exhausted.
  bool done() const noexcept { return leaf_.empty(); }

  /// Writes the next n elements in order to out (there must be at least n left).
  template <class Next> void merge(T* out, std::size_t n, Next& next) {
    std::size_t i = 0;
    while (i < n) {
      if (leaf_.empty()) throw std::logic_error("flow: priority queue merge asked for more items than it has");
      // Between two exhaustions the tree is fixed: matches of keys only.
      T wk = win_key_;
      std::uint32_t wl = win_leaf_;
      const std::size_t k = leaf_.size();
      T* keys = keys_.data();
      std::uint32_t* leaves = losers_.data();
      segment<T>* cursors = leaf_.data();
      bool dry = false;
      for (; i < n; ++i) {
        out[i] = wk;
        segment<T>& c = cursors[wl];
        if (++c.cur == c.end && !next(src_[wl], c)) {
          dry = true;
          ++i;
          break;
        }
        wk = *c.cur;
        for (std::size_t node = (k + wl) >> 1; node > 0; node >>= 1) {
          const T nk = keys[node];
          const std::uint32_t nl = leaves[node];
          const bool swap = cmp_(nk, wk);
          if constexpr (select_friendly) {
            keys[node] = detail::select(swap, wk, nk);
            leaves[node] = detail::select(swap, wl, nl);
            wk = detail::select(swap, nk, wk);
            wl = detail::select(swap, nl, wl);
          } else if (swap) {
            keys[node] = wk;
            leaves[node] = wl;
            wk = nk;
            wl = nl;
          }
        }
      }
      if (!dry) {
        win_key_ = wk;
        win_leaf_ = wl;
        break;
      }
      // Leaf wl has no more elements: write its cursor back as exhausted and build the
      // tree again over the others.
      cursor_[src_[wl]] = {};
      leaf_.erase(leaf_.begin() + wl);
      src_.erase(src_.begin() + wl);
      build();
    }
    for (std::size_t l = 0; l < leaf_.size(); ++l) cursor_[src_[l]] = leaf_[l];
  }

  /// Source i's cursor: the next element it would contribute (end of its data if none).
  const segment<T>& cursor(std::size_t i) const noexcept { return cursor_[i]; }

private:
  // Scalars, and records of up to 16 bytes without padding (an event of two u32s): their
  // bits copied as one integer (a record with padding or a float has bits that are no
  // part of its value, which bit_cast may not read; it takes the branch).
  static constexpr bool select_friendly =
      (std::is_scalar_v<T> || (std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>)) &&
      (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

  /// The tree over leaf_ (every one non-empty), bottom-up: node n's winner comes from
  /// its children 2n and 2n+1 (a leaf l sits at k + l), the loser stays in n.
  void build() {
    const std::size_t k = leaf_.size();
    if (k == 0) return;
    keys_.resize(k);
    losers_.resize(k);
    wkey_.resize(2 * k);
    wleaf_.resize(2 * k);
    for (std::size_t l = 0; l < k; ++l) {
      wkey_[k + l] = *leaf_[l].cur;
      wleaf_[k + l] = static_cast<std::uint32_t>(l);
    }
    for (std::size_t n = k - 1; n >= 1; --n) {
      const std::size_t a = 2 * n, b = 2 * n + 1;
      const bool b_wins = cmp_(wkey_[b], wkey_[a]);
      const std::size_t w = b_wins ? b : a, l = b_wins ? a : b;
      keys_[n] = wkey_[l];
      losers_[n] = wleaf_[l];
      wkey_[n] = wkey_[w];
      wleaf_[n] = wleaf_[w];
    }
    win_key_ = wkey_[1]; // k == 1: the leaf itself, at position 1
    win_leaf_ = wleaf_[1];
  }

  Cmp cmp_;
  std::vector<segment<T>> cursor_;  // per source (exhausted: empty)
  std::vector<segment<T>> leaf_;    // per leaf: the cursor of a live source
  std::vector<std::uint32_t> src_;  // per leaf: its source
  std::vector<T> keys_;             // losers of the internal nodes 1..k-1
  std::vector<std::uint32_t> losers_; // their leaves
  std::vector<T> wkey_;             // build's scratch: winners of each subtree
  std::vector<std::uint32_t> wleaf_;
  T win_key_{};
  std::uint32_t win_leaf_ = 0;
};

} // namespace flow::containers::pq
