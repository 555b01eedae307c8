#pragma once
// merge<Cmp>(s1, s2, ...): one sorted stream from k streams sorted by the same order
// (the language's `merge(s1, s2 by O)`). The inputs may be of different node types; a
// loser tree picks the next input. Equal elements come from the earlier input first.
//
//   auto all = flow::stream::merge<edge_order>(sorted_a, sorted_b, sorted_c);
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "flow/algo/loser_tree.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

template <class Cmp, class... Ins> class merge_node {
  static_assert(sizeof...(Ins) >= 1, "merge needs at least one input");
  using first_t = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Ins...>>>;

public:
  using value_type = value_t<first_t>;

  explicit merge_node(Cmp cmp, Ins&&... ins) : inputs_(std::forward<Ins>(ins)...), tree_(sizeof...(Ins), cmp) {
    init(std::index_sequence_for<Ins...>{});
    tree_.build();
  }
  bool empty() const noexcept { return tree_.empty(); }
  const value_type& operator*() const noexcept { return tree_.winner_key(); }
  const value_type* operator->() const noexcept { return &tree_.winner_key(); }
  merge_node& operator++() {
    advance_input(tree_.winner(), std::index_sequence_for<Ins...>{});
    return *this;
  }

private:
  template <std::size_t... I> void init(std::index_sequence<I...>) {
    ((std::get<I>(inputs_).empty() ? void() : tree_.set(I, *std::get<I>(inputs_))), ...);
  }
  template <std::size_t I> void advance_one() {
    auto& in = std::get<I>(inputs_);
    ++in;
    if (in.empty()) {
      tree_.remove_winner();
    } else {
      tree_.replace_winner(*in);
    }
  }
  template <std::size_t... I> void advance_input(std::size_t w, std::index_sequence<I...>) {
    ((w == I ? advance_one<I>() : void()), ...);
  }

  std::tuple<input_storage<Ins>...> inputs_;
  algo::loser_tree<value_type, Cmp, true> tree_;
};

template <class Cmp, class... Ins> merge_node<Cmp, Ins...> merge(Ins&&... ins) {
  return merge_node<Cmp, Ins...>(Cmp{}, std::forward<Ins>(ins)...);
}
template <class Cmp, class... Ins> merge_node<Cmp, Ins...> merge_with(Cmp cmp, Ins&&... ins) {
  return merge_node<Cmp, Ins...>(std::move(cmp), std::forward<Ins>(ins)...);
}

} // namespace flow::stream
