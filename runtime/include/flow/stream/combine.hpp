#pragma once
// Combining streams position by position (zip) or one after another (concat). Neither
// buffers anything: each holds only its inputs (and zip its current output).
//
//   // one output per position; inputs of different lengths are a script error
//   auto z = flow::stream::zip("script.flow:12:5",
//       [](const u64& a, const Edge& e) { return Row{a, e.dst}; }, ids, edges);
//   // all of a, then all of b, then all of c (same value_type)
//   auto c = flow::stream::concat(a, b, c);
//   for (; !c.empty(); ++c) use(*c);
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "flow/script/error.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

/// fn(*in1, *in2, ...) for every position of the inputs, which must all have the same
/// length: when one ends before another, ++ (or the constructor, for an empty one)
/// throws flow::script::script_error "<where>: zip: input K ended after N elements,
/// input J has more" (K the first input that ended, J the first that did not), so
/// nothing is dropped silently. `where` (a script position) must outlive the node.
template <class Fn, class... Ins> class zip_node {
  static_assert(sizeof...(Ins) >= 2, "zip needs at least two inputs");

public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, const value_t<Ins>&...>>;

  zip_node(const char* where, Fn fn, Ins&&... ins)
      : where_(where), fn_(std::move(fn)), inputs_(std::forward<Ins>(ins)...) {
    settle();
  }
  bool empty() const noexcept { return done_; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  zip_node& operator++() {
    std::apply([](auto&... in) { (++in, ...); }, inputs_);
    ++position_;
    settle();
    return *this;
  }
  /// Elements given so far (the position of the current one).
  std::uint64_t position() const noexcept { return position_; }

private:
  // Either every input has an element (compute the output), none has (the end), or
  // the lengths differ (the error).
  void settle() {
    const std::size_t ended = first_index([](const auto& in) { return in.empty(); });
    if (ended == sizeof...(Ins)) {
      current_ = std::apply([&](auto&... in) { return std::invoke(fn_, *in...); }, inputs_);
      return;
    }
    const std::size_t more = first_index([](const auto& in) { return !in.empty(); });
    if (more == sizeof...(Ins)) {
      done_ = true;
      return;
    }
    done_ = true;
    script::fail(where_, "zip: input " + std::to_string(ended + 1) + " ended after " + std::to_string(position_) +
                             " elements, input " + std::to_string(more + 1) + " has more");
  }
  // Index of the first input with pred(input), or the input count.
  template <class Pred> std::size_t first_index(Pred pred) const {
    std::size_t found = sizeof...(Ins);
    std::size_t i = 0;
    auto check = [&](const auto& in) {
      if (found == sizeof...(Ins) && pred(in)) found = i;
      ++i;
    };
    std::apply([&](const auto&... in) { (check(in), ...); }, inputs_);
    return found;
  }

  const char* where_;
  Fn fn_;
  std::tuple<input_storage<Ins>...> inputs_;
  std::uint64_t position_ = 0;
  bool done_ = false;
  value_type current_{};
};

template <class Fn, class... Ins> zip_node<Fn, Ins...> zip(const char* where, Fn fn, Ins&&... ins) {
  return zip_node<Fn, Ins...>(where, std::move(fn), std::forward<Ins>(ins)...);
}

/// All elements of the first input, then all of the second, ... (every input of the same
/// value_type). Each input is read to its end before the next is touched, so inputs that
/// are produced lazily (a sort's merge, a file read) run one after another. Offers
/// batch()/advance() when every input does.
template <class... Ins> class concat_node {
  static_assert(sizeof...(Ins) >= 1, "concat needs at least one input");
  using first_t = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Ins...>>>;
  static constexpr std::size_t count_ = sizeof...(Ins);

public:
  using value_type = value_t<first_t>;
  static_assert((std::is_same_v<value_type, value_t<Ins>> && ...), "concat: every input must have the same value_type");

  explicit concat_node(Ins&&... ins) : inputs_(std::forward<Ins>(ins)...) { settle(); }
  // current_ may point into an input held by value: a moved node points it again.
  concat_node(concat_node&& o) : inputs_(std::move(o.inputs_)), index_(o.index_), copy_(std::move(o.copy_)) {
    settle();
  }
  concat_node(const concat_node&) = delete;
  concat_node& operator=(const concat_node&) = delete;
  bool empty() const noexcept { return index_ == count_; }
  const value_type& operator*() const noexcept { return *current_; }
  const value_type* operator->() const noexcept { return current_; }
  concat_node& operator++() {
    visit([](auto& in) { ++in; });
    settle();
    return *this;
  }
  std::span<const value_type> batch() const
    requires(batch_node<std::remove_cvref_t<Ins>> && ...)
  {
    std::span<const value_type> b;
    visit([&](auto& in) { b = in.batch(); });
    return b;
  }
  void advance(std::size_t n)
    requires(batch_node<std::remove_cvref_t<Ins>> && ...)
  {
    visit([&](auto& in) { in.advance(n); });
    settle();
  }

private:
  // Skips ended inputs; points current_ at the element of the input that has one.
  void settle() {
    while (index_ < count_) {
      bool has = false;
      visit([&](auto& in) {
        if (in.empty()) return;
        has = true;
        if constexpr (std::is_lvalue_reference_v<decltype(*in)>) {
          current_ = &*in;
        } else { // an input giving elements by value: keep a copy
          copy_.emplace(*in);
          current_ = &*copy_;
        }
      });
      if (has) return;
      ++index_;
    }
    current_ = nullptr;
  }
  // f(the current input).
  template <class F> void visit(F&& f) { visit_at(*this, f, std::index_sequence_for<Ins...>{}); }
  template <class F> void visit(F&& f) const { visit_at(*this, f, std::index_sequence_for<Ins...>{}); }
  template <class Self, class F, std::size_t... I> static void visit_at(Self& self, F& f, std::index_sequence<I...>) {
    ((self.index_ == I ? f(std::get<I>(self.inputs_)) : void()), ...);
  }

  std::tuple<input_storage<Ins>...> inputs_;
  std::size_t index_ = 0;
  const value_type* current_ = nullptr;
  std::optional<value_type> copy_;
};

template <class... Ins> concat_node<Ins...> concat(Ins&&... ins) {
  return concat_node<Ins...>(std::forward<Ins>(ins)...);
}

/// The push side of concat: every element of every input, in order, into `consumer`
/// (push_to: a callable, push(v) or push_back(v)). For a generated loop that feeds one
/// consumer from several streams without building a node.
template <class Consumer, class... Ins> void concat_into(Consumer& consumer, Ins&&... ins) {
  (for_each(std::forward<Ins>(ins), [&](const auto& v) { push_to(consumer, v); }), ...);
}

} // namespace flow::stream
