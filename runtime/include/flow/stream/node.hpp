#pragma once
// The stream node concept (STXXL's streaming layer, thesis section 3.7): a node is a
// pull-based sequence with
//   typename value_type;
//   bool empty() const;             // true at the end (call before every *)
//   const value_type& operator*();  // the current element (or a value convertible to it)
//   node& operator++();             // to the next element
// and, optionally, a batch interface for nodes whose elements are already in memory
// (scans, file reads, sort and merge outputs):
//   std::span<const value_type> batch();  // the ready elements from the current one on
//   void advance(std::size_t n);          // skip n <= batch().size() of them
// Nodes are bound to their inputs through templates, so a chain such as
// filter(map(generate(...))) inlines into one loop. A node built from an lvalue input
// keeps a reference to it (the input must outlive the node); one built from an rvalue
// input (a temporary) owns it:
//
//   auto edges = flow::stream::generate(n, make_edge);           // named: referenced
//   auto good = flow::stream::filter(edges, not_a_loop);
//   auto sorted = flow::stream::sort<edge_order>(good, 256 << 20);
//   std::uint64_t c = flow::stream::count(flow::stream::unique(sorted));
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

namespace flow::stream {

template <class N>
concept node = requires(N& n, const N& cn) {
  typename std::remove_cvref_t<N>::value_type;
  { cn.empty() } -> std::convertible_to<bool>;
  *n;
  ++n;
};

template <class N>
concept batch_node = node<N> && requires(N& n, std::size_t k) {
  { n.batch() };
  n.advance(k);
};

template <class N> using value_t = typename std::remove_cvref_t<N>::value_type;

/// How a node stores its input: a reference for an lvalue, the object for an rvalue
/// (deduce `In` with a forwarding reference and pass it here).
template <class In> using input_storage = std::conditional_t<std::is_lvalue_reference_v<In>, In, std::remove_cvref_t<In>>;

/// Calls fn(element) for every element of the stream (by batches where it can).
template <class N, class Fn> void for_each(N&& in, Fn&& fn) {
  if constexpr (batch_node<std::remove_cvref_t<N>>) {
    while (!in.empty()) {
      auto b = in.batch();
      for (const auto& v : b) fn(v);
      in.advance(b.size());
    }
  } else {
    for (; !in.empty(); ++in) fn(*in);
  }
}

/// Number of elements of the stream (consumes it).
template <class N> std::uint64_t count(N&& in) {
  std::uint64_t c = 0;
  if constexpr (batch_node<std::remove_cvref_t<N>>) {
    while (!in.empty()) {
      const std::size_t k = in.batch().size();
      c += k;
      in.advance(k);
    }
  } else {
    for (; !in.empty(); ++in) ++c;
  }
  return c;
}

/// Pushes v into a consumer: a callable, or an object with push(v) or push_back(v).
template <class C, class T> void push_to(C& consumer, const T& v) {
  if constexpr (std::is_invocable_v<C&, const T&>) {
    consumer(v);
  } else if constexpr (requires { consumer.push(v); }) {
    consumer.push(v);
  } else {
    consumer.push_back(v);
  }
}

} // namespace flow::stream
