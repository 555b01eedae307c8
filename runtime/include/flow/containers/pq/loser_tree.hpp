#pragma once
// The priority queue's multiway merger: a loser tree (Knuth's tournament tree of
// losers) over S sorted sources whose elements arrive in *segments* (an internal
// array's chunks, an external array's blocks, a plain range). Not the sorter's
// algo/loser_tree: the queue needs sources of different and unknown lengths that end at
// any time (no sentinel values: a user's item may equal any sentinel), a merge that
// stops after exactly n outputs and resumes later (a block or chunk of output at a time,
// a deletion buffer's worth, a bulk), and the cursor of every source afterwards (what
// was consumed). An exhausted source plays as +infinity, flagged in the node, so the
// comparator is never asked about a value that is not an item.
//
// Per output element: one copy out, one ++ on the winner's cursor, one end-of-segment
// test, and log2(S) matches on the way up. Nodes keep a copy of their key (no pointer
// chasing); the match is written as selects so small keys compile to conditional moves.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
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
    k_ = 1;
    while (k_ < s) k_ <<= 1;
    cursor_.assign(sources.begin(), sources.end());
    cursor_.resize(k_);
    keys_.resize(k_);
    srcs_.resize(k_);
    for (std::size_t i = 0; i < k_; ++i) {
      if (i < s && cursor_[i].cur == cursor_[i].end && !next(i, cursor_[i])) cursor_[i] = {};
    }
    // Build bottom-up: winners_[] is scratch for the winners of each subtree.
    std::vector<T> wkey(2 * k_);
    std::vector<std::uint32_t> wsrc(2 * k_);
    for (std::size_t i = 0; i < k_; ++i) {
      const bool live = i < s && cursor_[i].cur != cursor_[i].end;
      if (live) wkey[k_ + i] = *cursor_[i].cur;
      wsrc[k_ + i] = static_cast<std::uint32_t>(i) | (live ? 0u : inf_bit);
    }
    for (std::size_t n = k_ - 1; n >= 1; --n) {
      const std::size_t a = 2 * n, b = 2 * n + 1;
      if (beats(wkey[b], wsrc[b], wkey[a], wsrc[a])) { // b wins, a loses
        keys_[n] = wkey[a];
        srcs_[n] = wsrc[a];
        wkey[n] = wkey[b];
        wsrc[n] = wsrc[b];
      } else {
        keys_[n] = wkey[b];
        srcs_[n] = wsrc[b];
        wkey[n] = wkey[a];
        wsrc[n] = wsrc[a];
      }
    }
    win_key_ = wkey[1];
    win_src_ = wsrc[1];
    if (k_ == 1) { // a single source: the winner is the leaf itself
      win_key_ = wkey[1];
      win_src_ = wsrc[1];
    }
  }

  /// True when every source is exhausted.
  bool done() const noexcept { return (win_src_ & inf_bit) != 0; }

  /// Writes the next n elements in order to out (there must be at least n left).
  template <class Next> void merge(T* out, std::size_t n, Next& next) {
    T wk = win_key_;
    std::uint32_t ws = win_src_;
    const std::size_t k = k_;
    T* keys = keys_.data();
    std::uint32_t* srcs = srcs_.data();
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = wk;
      segment<T>& c = cursor_[ws];
      if (++c.cur == c.end && !next(ws, c)) {
        c = {};
        ws |= inf_bit;
      } else {
        wk = *c.cur;
      }
      for (std::size_t node = (k + (ws & ~inf_bit)) >> 1; node > 0; node >>= 1) {
        const T nk = keys[node];
        const std::uint32_t ns = srcs[node];
        const bool swap = beats(nk, ns, wk, ws);
        if constexpr (select_friendly) {
          keys[node] = detail::select(swap, wk, nk);
          srcs[node] = detail::select(swap, ws, ns);
          wk = detail::select(swap, nk, wk);
          ws = detail::select(swap, ns, ws);
        } else if (swap) {
          keys[node] = wk;
          srcs[node] = ws;
          wk = nk;
          ws = ns;
        }
      }
    }
    win_key_ = wk;
    win_src_ = ws;
  }

  /// Source i's cursor: the next element it would contribute (end of its data if none).
  const segment<T>& cursor(std::size_t i) const noexcept { return cursor_[i]; }

private:
  static constexpr std::uint32_t inf_bit = 0x80000000u;
  static constexpr bool select_friendly =
      std::is_scalar_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

  /// Does (ak, as) win the match against (bk, bs)? An exhausted source never wins.
  bool beats(const T& ak, std::uint32_t as, const T& bk, std::uint32_t bs) const {
    const bool a_inf = (as & inf_bit) != 0;
    const bool b_inf = (bs & inf_bit) != 0;
    if constexpr (select_friendly) {
      return static_cast<bool>((!a_inf) & (b_inf | static_cast<bool>(cmp_(ak, bk)))); // no branches
    } else {
      return !a_inf && (b_inf || cmp_(ak, bk));
    }
  }

  Cmp cmp_;
  std::size_t k_ = 1;
  std::vector<segment<T>> cursor_;
  std::vector<T> keys_;             // losers of the internal nodes 1..k-1
  std::vector<std::uint32_t> srcs_; // their sources (| inf_bit when exhausted)
  T win_key_{};
  std::uint32_t win_src_ = inf_bit;
};

} // namespace flow::containers::pq
