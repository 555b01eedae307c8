#pragma once
// A reduce spread over the ranks whose keys the planner expects to fit a hash table: each
// rank first folds its own part in a hash table (flow/stream/reduce.hpp's
// hash_reduce_runs), and only then sends its distinct keys to the rank of their key range
// through a sample sort with the same fold (flow/ranks/sample_sort.hpp). So a rank sends
// at most its distinct keys rather than every element: the network carries about
// P × distinct keys instead of the input. result() returns this rank's range of the keys
// as sorted runs, which reduce_merge merges (and folds) as usual.
//
// Constructed like hash_reduce_runs (memory, combine, options, hash, same, order, the
// distinct keys expected), it takes the same place in generated code.
//
// Memory (within the reduce's budget): the table gets half, the sample sort the other
// half. When half is too little for either (a table needs its least budget, a sample sort
// its run formation's and plan::sample_sort_buffers), the reduce is the sample sort alone
// with the whole budget (the plan's least budget for it): the same
// result, every element sent. One rank: the hash table with the whole budget, as one
// process.
//
// The sample sort takes its splitters from the first elements it is given. The table's
// keys come out sorted, so an evenly spaced sample of them is given first and the
// splitters agreed on it. When the table spilled to disk, its runs are merged and given
// in order: still the right result, but the splitters then come from the smallest keys
// and the last rank gets more than its share.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include "flow/plan/memory_plan.hpp"
#include "flow/plan/reduce_model.hpp"
#include "flow/plan/sort_model.hpp"
#include "flow/ranks.hpp"
#include "flow/ranks/sample_sort.hpp"
#include "flow/stream/reduce.hpp"

namespace flow::ranks {

template <class T, class Cmp, class Hash, class Same, class Combine> class spread_reduce {
public:
  using value_type = T;

  spread_reduce(std::size_t memory_bytes, Combine combine, algo::sort_options opt, Hash hash, Same same, Cmp cmp,
                std::uint64_t expected_keys = 0)
      : memory_(memory_bytes), combine_(combine), opt_(opt) {
    const std::size_t block = opt.block_bytes ? opt.block_bytes : flow::default_block_bytes;
    const bool one = size() == 1;
    const std::size_t table_memory = one ? memory_bytes : memory_bytes / 2;
    const auto setup = algo::sort_setup_of<T, Cmp>(opt);
    const bool halves_fit = plan::spread_reduce_folds_first(setup, memory_bytes, block, expected_keys);
    algo::sort_options table_opt = opt;
    table_opt.keep_last_run = false; // a table that spilled holds nothing: its runs' merge takes its half
    if (one || halves_fit)
      table_.emplace(table_memory, combine, table_opt, std::move(hash), std::move(same), cmp, expected_keys);
    if (!one) sort_.emplace(halves_fit ? memory_bytes - memory_bytes / 2 : memory_bytes, cmp, combine, opt);
  }

  void push(const T& x) {
    if (table_) table_->push(x);
    else sort_->push(x);
  }

  /// This rank's range of the keys, folded into sorted runs (a collective operation:
  /// every rank calls it).
  algo::sorted_runs<T> result() {
    if (!sort_) return table_->result(); // one rank
    if (table_) {
      algo::sorted_runs<T> mine = table_->result();
      if (mine.in_memory()) {
        for (std::span<const T> keys : mine.memory_sequences()) give_sorted(keys);
      } else {
        stream::reduce_merge<T, Cmp, Combine> merged(std::move(mine), memory_ / 2, combine_, opt_);
        for (; !merged.empty(); ++merged) sort_->push(*merged);
      }
    }
    return sort_->result();
  }

private:
  // Evenly spaced keys first, as many as the sample sort samples, then the splitters are
  // agreed, then the other keys.
  void give_sorted(std::span<const T> keys) {
    const std::size_t n = keys.size(), per = sample_sort<T, Cmp, Combine>::samples_per_rank;
    const std::size_t stride = std::max<std::size_t>(1, (n + per - 1) / per);
    for (std::size_t i = 0; i < n; i += stride) sort_->push(keys[i]);
    sort_->agree_now();
    for (std::size_t i = 0; i < n; ++i)
      if (i % stride != 0) sort_->push(keys[i]);
  }

  std::size_t memory_;
  Combine combine_;
  algo::sort_options opt_;
  std::optional<stream::hash_reduce_runs<T, Cmp, Hash, Same, Combine>> table_; // this rank's part folded
  std::optional<sample_sort<T, Cmp, Combine>> sort_;                            // over the ranks (several)
};

} // namespace flow::ranks
