#pragma once
// Per-element nodes: map, filter, unique, take, tee. Each inlines into its consumer's loop.
// unique and take keep their rule in a small object (first_of_group, take_count) that
// generated programs also use when they push elements instead of pulling them.
//
//   auto m = flow::stream::map(in, [](const Edge& e) { return e.src; });
//   auto f = flow::stream::filter(in, [](const Edge& e) { return e.src != e.dst; });
//   auto u = flow::stream::unique(sorted);                                  // by ==
//   auto v = flow::stream::unique(sorted, [](const Edge& e) { return e.src; }); // by key
//   auto t = flow::stream::take(in, 10);
//   auto x = flow::stream::tee(in, other_sorter);  // passes in through, pushes a copy
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "flow/stream/node.hpp"

namespace flow::stream {

/// fn(x) for every element x of the input. fn is called once per element, in order.
template <class In, class Fn> class map_node {
  using input_t = std::remove_cvref_t<In>;

public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, const value_t<input_t>&>>;

  map_node(In&& in, Fn fn) : in_(std::forward<In>(in)), fn_(std::move(fn)) {
    if (!in_.empty()) current_ = fn_(*in_);
  }
  bool empty() const { return in_.empty(); }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  map_node& operator++() {
    ++in_;
    if (!in_.empty()) current_ = fn_(*in_);
    return *this;
  }

private:
  input_storage<In> in_;
  Fn fn_;
  value_type current_{};
};

template <class In, class Fn> map_node<In, Fn> map(In&& in, Fn fn) {
  return map_node<In, Fn>(std::forward<In>(in), std::move(fn));
}

/// The elements x of the input with pred(x) true.
template <class In, class Pred> class filter_node {
public:
  using value_type = value_t<In>;

  filter_node(In&& in, Pred pred) : in_(std::forward<In>(in)), pred_(std::move(pred)) { skip(); }
  bool empty() const { return in_.empty(); }
  decltype(auto) operator*() const { return *in_; }
  filter_node& operator++() {
    ++in_;
    skip();
    return *this;
  }

private:
  void skip() {
    while (!in_.empty() && !pred_(*in_)) ++in_;
  }
  input_storage<In> in_;
  Pred pred_;
};

template <class In, class Pred> filter_node<In, Pred> filter(In&& in, Pred pred) {
  return filter_node<In, Pred>(std::forward<In>(in), std::move(pred));
}

/// Equality of whole elements: == where the type has it, else the bytes (imported C++
/// records are trivially copyable but may have no ==).
struct same_value {
  template <class T> bool operator()(const T& a, const T& b) const {
    if constexpr (requires { a == b; }) return a == b;
    else return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
};

/// Whether a and b are in one group: `same(a, b)` for a binary predicate, `same(a) ==
/// same(b)` for a unary key function (unique's and reduce's two ways to name a key).
template <class Same, class T> bool same_group(const Same& same, const T& a, const T& b) {
  if constexpr (std::is_invocable_r_v<bool, const Same&, const T&, const T&>) {
    return same(a, b);
  } else {
    return same(a) == same(b);
  }
}

/// The rule of unique, one element at a time: admit(x) is true when x starts a new group
/// of adjacent equal elements, i.e. differs from the last admitted one. "Equal" is
/// `same(a, b)` for a binary predicate, `same(a) == same(b)` for a unary key function.
/// unique_node pulls through it; generated programs push elements through it.
template <class T, class Same = same_value> class first_of_group {
public:
  explicit first_of_group(Same same = Same{}) : same_(std::move(same)) {}
  bool admit(const T& x) {
    if (has_ && equal(last_, x)) return false;
    last_ = x;
    has_ = true;
    return true;
  }
  /// admit(x), as filter_node calls its predicate (unique_node).
  bool operator()(const T& x) { return admit(x); }

private:
  bool equal(const T& a, const T& b) const { return same_group(same_, a, b); }
  Same same_;
  T last_{};
  bool has_ = false;
};

/// The first element of every group of adjacent equal elements (see first_of_group): a
/// filter whose predicate is the group rule.
template <class In, class Same> using unique_node = filter_node<In, first_of_group<value_t<In>, Same>>;

template <class In> auto unique(In&& in) {
  return unique_node<In, same_value>(std::forward<In>(in), first_of_group<value_t<In>, same_value>());
}
/// `same` is a binary equality predicate or a unary key function.
template <class In, class Same> unique_node<In, Same> unique(In&& in, Same same) {
  return unique_node<In, Same>(std::forward<In>(in), first_of_group<value_t<In>, Same>(std::move(same)));
}

/// The rule of take, one element at a time: admit() is true for the first n calls.
class take_count {
public:
  explicit take_count(std::uint64_t n) : left_(n) {}
  bool admit() {
    if (left_ == 0) return false;
    --left_;
    return true;
  }
  bool done() const { return left_ == 0; }
  std::uint64_t left() const { return left_; }
  void skip(std::uint64_t n) { left_ -= n; }

private:
  std::uint64_t left_;
};

/// The first n elements of the input (see take_count).
template <class In> class take_node {
public:
  using value_type = value_t<In>;

  take_node(In&& in, std::uint64_t n) : in_(std::forward<In>(in)), left_(n) {}
  bool empty() const { return left_.done() || in_.empty(); }
  decltype(auto) operator*() const { return *in_; }
  take_node& operator++() {
    left_.admit();
    if (!left_.done()) ++in_; // never pulls past the n-th element
    return *this;
  }
  auto batch() const
    requires batch_node<std::remove_cvref_t<In>>
  {
    auto b = in_.batch();
    return b.first(static_cast<std::size_t>(std::min<std::uint64_t>(b.size(), left_.left())));
  }
  void advance(std::size_t n)
    requires batch_node<std::remove_cvref_t<In>>
  {
    left_.skip(n);
    if (!left_.done()) in_.advance(n);
  }

private:
  input_storage<In> in_;
  take_count left_;
};

template <class In> take_node<In> take(In&& in, std::uint64_t n) {
  return take_node<In>(std::forward<In>(in), n);
}

/// Passes the input through unchanged and pushes every element it passes into each
/// consumer (push_to: a callable, push(v) or push_back(v)): one stream feeding several
/// consumers in the same phase, one of them pulling.
template <class In, class... Consumers> class tee_node {
public:
  using value_type = value_t<In>;

  tee_node(In&& in, Consumers&... consumers) : in_(std::forward<In>(in)), consumers_(consumers...) {
    give();
  }
  bool empty() const { return in_.empty(); }
  decltype(auto) operator*() const { return *in_; }
  tee_node& operator++() {
    ++in_;
    give();
    return *this;
  }

private:
  void give() {
    if (in_.empty()) return;
    const auto& v = *in_;
    std::apply([&](auto&... c) { (push_to(c, v), ...); }, consumers_);
  }
  input_storage<In> in_;
  std::tuple<Consumers&...> consumers_;
};

template <class In, class... Consumers> tee_node<In, Consumers...> tee(In&& in, Consumers&... consumers) {
  return tee_node<In, Consumers...>(std::forward<In>(in), consumers...);
}

} // namespace flow::stream
