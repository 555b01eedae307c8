#pragma once
// A loser tree (tournament tree, Knuth 5.4.1): selects the smallest of k keys and, after
// the winner's key is replaced or its source is exhausted, the next smallest in
// ceil(log2 k) comparisons. It is the inner loop of k-way merging (the sorter's runs
// merger, the priority queue's group merges). Generic over the key type and a strict weak
// order `Less`; exhausted players are flagged, so no sentinel key is needed and real keys
// equal to a comparator's max_value() are merged correctly.
//
//   flow::algo::loser_tree<std::uint64_t> lt(k);
//   for (std::size_t i = 0; i < k; ++i)
//     if (!runs[i].empty()) lt.set(i, runs[i].front()); // others stay exhausted
//   lt.build();
//   while (!lt.empty()) {
//     const std::size_t i = lt.winner();
//     out.push(lt.winner_key());
//     advance(runs[i]);
//     if (runs[i].empty()) lt.remove_winner(); else lt.replace_winner(runs[i].front());
//   }
//
// Stable = true breaks ties by the smaller player index (merging runs numbered in input
// order is then stable); Stable = false lets ties go either way (one comparison less per
// level). The interface below is frozen: other runtime parts build on it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace flow::algo {

// The first round of a loser tree: the leaves are win[leaves, 2 * leaves); each inner
// node p gets the winner of its two children in win[p] and the loser in tree[p].
template <class Node, class Beats>
void play_tournament(std::vector<Node>& win, std::vector<Node>& tree, std::size_t leaves, const Beats& beats) {
  for (std::size_t p = leaves - 1; p >= 1; --p) {
    const Node a = win[2 * p], b = win[2 * p + 1];
    if (beats(b, a)) {
      win[p] = b;
      tree[p] = a;
    } else {
      win[p] = a;
      tree[p] = b;
    }
  }
}

template <class Key, class Less = std::less<Key>, bool Stable = false> class loser_tree {
public:
  using key_type = Key;
  using compare_type = Less;

  /// A tree for `players` players (0 allowed), all exhausted until set().
  explicit loser_tree(std::size_t players = 0, Less less = Less()) : less_(std::move(less)) {
    reset(players);
  }

  /// Forgets everything: `players` players, all exhausted. Call set() then build().
  void reset(std::size_t players) {
    if (players > UINT32_MAX) throw std::length_error("flow: loser_tree: too many players");
    players_ = players;
    leaves_ = 1;
    while (leaves_ < players_) leaves_ <<= 1;
    nodes_.assign(leaves_, node{});      // nodes_[1..leaves_-1]: losers; nodes_[0]: winner
    initial_.assign(leaves_, node{});    // the leaves' keys until build()
    for (std::size_t i = 0; i < leaves_; ++i) initial_[i].player = static_cast<std::uint32_t>(i);
  }

  std::size_t players() const noexcept { return players_; }

  /// Before build(): player `player`'s first key (it is not exhausted).
  void set(std::size_t player, const Key& key) {
    initial_[player].key = key;
    initial_[player].exhausted = false;
  }
  /// Before build(): player `player` has no keys (the default).
  void set_exhausted(std::size_t player) { initial_[player].exhausted = true; }

  /// Plays the initial tournament: O(k) comparisons.
  void build() {
    if (leaves_ == 1) {
      nodes_[0] = initial_[0];
      if (players_ == 0) nodes_[0].exhausted = true;
      return;
    }
    // winners of the subtrees, bottom-up, in a scratch array indexed like the tree
    std::vector<node> win(2 * leaves_);
    for (std::size_t i = 0; i < leaves_; ++i) win[leaves_ + i] = initial_[i];
    play_tournament(win, nodes_, leaves_, [this](const node& a, const node& b) { return beats(a, b); });
    nodes_[0] = win[1];
  }

  /// True when every player is exhausted.
  bool empty() const noexcept { return nodes_[0].exhausted; }
  /// The player holding the smallest key (not exhausted unless empty()).
  std::size_t winner() const noexcept { return nodes_[0].player; }
  const Key& winner_key() const noexcept { return nodes_[0].key; }

  /// The winner's next key; replays its path. O(log k).
  void replace_winner(const Key& key) {
    nodes_[0].key = key;
    replay();
  }
  /// The winner has no more keys; replays its path. O(log k).
  void remove_winner() {
    nodes_[0].exhausted = true;
    replay();
  }

private:
  struct node {
    Key key{};
    std::uint32_t player = 0;
    bool exhausted = true;
  };

  // a is strictly preferred to b
  bool beats(const node& a, const node& b) const {
    if (a.exhausted) return false;
    if (b.exhausted) return true;
    if constexpr (Stable) {
      if (less_(a.key, b.key)) return true;
      if (less_(b.key, a.key)) return false;
      return a.player < b.player;
    } else {
      return less_(a.key, b.key);
    }
  }

  void replay() {
    node cand = std::move(nodes_[0]);
    for (std::size_t p = (leaves_ + cand.player) >> 1; p >= 1; p >>= 1) {
      if (beats(nodes_[p], cand)) std::swap(nodes_[p], cand);
    }
    nodes_[0] = std::move(cand);
  }

  Less less_;
  std::size_t players_ = 0;
  std::size_t leaves_ = 1;
  std::vector<node> nodes_;
  std::vector<node> initial_;
};

} // namespace flow::algo
