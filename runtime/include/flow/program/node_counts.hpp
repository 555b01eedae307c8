#pragma once
// What each node of a generated program's plan measured: the elements it put out, and
// for a queue its pushes and the most items it held at once. Generated code keeps one
// counter per node (an increment where the node hands an element on), the program's
// `--stats=json` reports them ("nodes", "queues"), and `flowc explain --calibrate` turns
// them into selectivities and queue peaks for its estimate (docs/estimates.md).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace flow {

struct node_count {
  unsigned id = 0;            ///< the plan's node id (flowc explain's nN)
  std::string name;           ///< the plan's node name
  bool counted = false;       ///< the generated code counts this node (else it is not reported)
  bool queue = false;         ///< a priority queue: `elements` are its pushes
  std::uint64_t elements = 0; ///< elements put out; a queue or a vector's pushes: pushes
  std::uint64_t peak = 0;     ///< a queue: the most items it held at once (after a push)
};

/// One counter per node of the plan, indexed by node id. Generated code keeps them in
/// a static array: an increment is then one instruction at a fixed address.
using node_counts = std::span<const node_count>;

/// `q.push(v)` on a counted queue: the push, its count and the queue's peak size.
/// Inlined always, as the push is where it is not counted (a call costs more than the
/// count).
template <class Queue, class T>
[[gnu::always_inline]] inline void counted_push(Queue& q, T&& v, node_count& c) {
  q.push(std::forward<T>(v));
  ++c.elements;
  c.peak = std::max<std::uint64_t>(c.peak, static_cast<std::uint64_t>(q.size()));
}

/// `v.push_back(x)` on a vector whose pushes are counted.
template <class Vector, class T>
[[gnu::always_inline]] inline void counted_push_back(Vector& v, T&& x, node_count& c) {
  v.push_back(std::forward<T>(x));
  ++c.elements;
}

} // namespace flow
