#pragma once
// sort<Cmp>(input, memory_bytes): the sorting node. Its constructor pulls the whole input
// into run formation (the phase that feeds the sort), then the node is a stream of the
// sorted elements whose merging happens as it is read (the phase that consumes it).
// Everything within memory_bytes; see flow/algo/sorter.hpp. For a sort whose input is
// pushed (several consumers of one stream, a loop's emits) use flow::algo::runs_creator
// and flow::algo::runs_merger.
//
//   auto sorted = flow::stream::sort<edge_order>(edges, 256 << 20);
//   for (; !sorted.empty(); ++sorted) use(*sorted);
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include "flow/algo/sorter.hpp"
#include "flow/pull.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

template <class T, class Cmp> class sort_node : public pull_through<sort_node<T, Cmp>, T> {
public:
  template <class In>
  sort_node(In&& in, std::size_t memory_bytes, Cmp cmp = Cmp(), algo::sort_options opt = {})
      : sorter_(std::make_unique<algo::sorter<T, Cmp>>(memory_bytes, std::move(cmp), opt)) {
    sorter_->push_all(in);
    sorter_->finish();
  }
  /// Elements sorted.
  std::uint64_t size() const noexcept { return sorter_->size(); }
  /// 0: sorted in memory; 1: one merge pass; more: intermediate merges were needed.
  unsigned merge_passes() const noexcept { return sorter_->merge_passes(); }
  /// Where the sorter's time went (see flow::algo::sort_timings).
  algo::sort_timings timings() const noexcept { return sorter_->timings(); }

private:
  friend pull_through<sort_node, T>;
  algo::sorter<T, Cmp>& inner() const noexcept { return *sorter_; }

  std::unique_ptr<algo::sorter<T, Cmp>> sorter_;
};

template <class Cmp, class In>
sort_node<value_t<In>, Cmp> sort(In&& in, std::size_t memory_bytes, algo::sort_options opt = {}) {
  return sort_node<value_t<In>, Cmp>(std::forward<In>(in), memory_bytes, Cmp{}, opt);
}
template <class Cmp, class In>
sort_node<value_t<In>, Cmp> sort_with(In&& in, Cmp cmp, std::size_t memory_bytes, algo::sort_options opt = {}) {
  return sort_node<value_t<In>, Cmp>(std::forward<In>(in), memory_bytes, std::move(cmp), opt);
}

} // namespace flow::stream
