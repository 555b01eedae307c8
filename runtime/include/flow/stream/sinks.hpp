#pragma once
// Sinks: materialize a stream into a container, a file or an output iterator; branch a
// stream into several push consumers (sorters' runs_creators, vectors, files, callables)
// in one pass.
//
//   std::vector<Edge> v;          flow::stream::materialize(s, v);
//   flow::containers::vector<Edge> ev(64 << 20);  flow::stream::materialize(s, ev);
//   flow::stream::materialize_file(s, "edges.bin");
//   flow::stream::branch(s, runs_by_src, runs_by_dst);   // both get every element
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "flow/io/typed_file.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

/// Appends every element of the stream to `out` (anything with push(v) or push_back(v),
/// e.g. std::vector, flow::containers::vector, flow::io::file_writer, a runs_creator);
/// returns the number of elements.
template <class N, class Out>
  requires(!std::is_invocable_v<Out&, const value_t<N>&>)
std::uint64_t materialize(N&& in, Out& out) {
  std::uint64_t c = 0;
  if constexpr (requires(std::span<const value_t<N>> s) { out.push(s); } && batch_node<std::remove_cvref_t<N>>) {
    while (!in.empty()) {
      auto b = in.batch();
      out.push(std::span<const value_t<N>>(b.data(), b.size()));
      c += b.size();
      in.advance(b.size());
    }
  } else if constexpr (requires(const value_t<N>* p) { out.insert(out.end(), p, p); } &&
                       batch_node<std::remove_cvref_t<N>>) {
    while (!in.empty()) {
      auto b = in.batch();
      out.insert(out.end(), b.data(), b.data() + b.size());
      c += b.size();
      in.advance(b.size());
    }
  } else {
    for (; !in.empty(); ++in, ++c) push_to(out, *in);
  }
  return c;
}

/// Writes every element to the output iterator; returns the iterator past the last.
template <class N, class It>
  requires std::output_iterator<It, value_t<N>> && (!requires(It& i) { i.push_back(*i); })
It materialize_to(N&& in, It out) {
  for_each(in, [&](const auto& v) { *out++ = v; });
  return out;
}

/// Writes the stream to a binary file of its elements (flow/io/typed_file.hpp); returns
/// the number of elements. Throws io_error on failure (and removes the partial file).
template <class N>
std::uint64_t materialize_file(N&& in, const std::string& path,
                               std::size_t memory_bytes = io::default_typed_file_memory, bool direct = true) {
  io::file_writer<value_t<N>> out(path, memory_bytes, direct);
  const std::uint64_t c = materialize(in, out);
  out.finish();
  return c;
}

/// Pulls the whole stream once and pushes every element into each consumer (push_to: a
/// callable, push(v) or push_back(v)); returns the number of elements.
template <class N, class... Consumers> std::uint64_t branch(N&& in, Consumers&... consumers) {
  std::uint64_t c = 0;
  for_each(in, [&](const auto& v) {
    (push_to(consumers, v), ...);
    ++c;
  });
  return c;
}

} // namespace flow::stream
