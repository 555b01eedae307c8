#pragma once
// A sort spread over the ranks (flow/ranks.hpp): each rank pushes its part of the
// input; its elements go to the rank of their key range as they come, and result()
// returns this rank's sorted runs, which a runs_merger merges as usual. Rank r ends up
// with the keys between splitters r-1 and r, so the ranks' outputs in rank order are the
// whole input sorted, and equal keys are on one rank (a unique or a grouping after the
// sort needs no other).
//
// The splitters come from a sample of each rank's first elements (a sample sort, as
// Thrill's and the STXXL paper's distributed sorts, without storing the input first):
// a rank holds its first quarter-budget of elements in memory, and when that is full —
// or its input ends — it gathers every rank's 256 evenly spaced samples of them (each
// rank does so once, as its first exchange), sorts them and takes P - 1 evenly spaced
// ones. From then on each element is appended to the buffer of its rank, and a full
// buffer starts a round: all ranks exchange what they have (a rank that has ended its
// input takes part from result() until every rank has ended), and each pushes what it
// receives into the run formation that sorts its range. So a sort costs each rank the
// I/O of its share of the data, as one process's sort would, and the network (P-1)/P
// of it.
//
// The sample is of each rank's first elements: for input in random order, or sorted
// overall (each rank's first elements then start its own share of the keys), the ranks
// get about equal ranges; an input whose every rank's part starts with the smallest keys
// gives the last rank the most. The result is right either way.
//
// With a combiner (Combine, flow/algo/combine.hpp: a spread reduce) each rank's run
// formation folds the equal keys of its range, which are all on that rank.
//
// Memory (within the sort's budget): the first-elements buffer (a quarter, less where
// the run formation would get less than its least budget), the round's buffers (half a
// block in all, and at most as much received: two blocks are set aside), the run
// formation (the rest). The plan gives a spread sort plan::sample_sort_buffers beside its
// run formation's least budget. One rank: a plain runs_creator.
#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "flow/algo/runs_creator.hpp"
#include "flow/defaults.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/plan/sort_model.hpp"
#include "flow/ranks.hpp"

namespace flow::ranks {

template <class T, class Cmp, class Combine = algo::no_combine> class sample_sort {
  static_assert(std::is_trivially_copyable_v<T>, "elements travel between ranks as raw bytes");

public:
  using value_type = T;
  static constexpr std::size_t samples_per_rank = plan::sample_sort_samples_per_rank;

  /// Sorts within `memory_bytes`, as runs_creator(memory_bytes, cmp, opt) does.
  sample_sort(std::size_t memory_bytes, Cmp cmp, algo::sort_options opt)
      : sample_sort(memory_bytes, std::move(cmp), Combine(), opt) {}
  /// The same, folding equal elements with combine(a, b) as runs_creator does.
  sample_sort(std::size_t memory_bytes, Cmp cmp, Combine combine, algo::sort_options opt)
      : memory_(memory_bytes), cmp_(std::move(cmp)), combine_(std::move(combine)), opt_(opt),
        block_(opt.block_bytes ? opt.block_bytes : flow::default_block_bytes) {
    if (size() == 1) {
      creator_.emplace(memory_, cmp_, combine_, opt_);
      return;
    }
    // The run formation keeps at least its least budget; the first elements get a quarter
    // of the memory, or what is left beside that and the round's buffers.
    const std::size_t runs = static_cast<std::size_t>(plan::run_memory_for(algo::sort_setup_of<T, Cmp>(opt_), 0));
    if (memory_ < runs + 2 * block_ + sizeof(T))
      throw std::invalid_argument("flow: a sort spread over the ranks needs a memory budget of at least " +
                                  std::to_string(runs + plan::sample_sort_buffers(block_)) + " bytes with blocks of " +
                                  std::to_string(block_) + " bytes; got " + std::to_string(memory_) +
                                  ". Give the sort more memory or smaller blocks.");
    first_bytes_ = std::min(memory_ / 4, memory_ - 2 * block_ - runs);
    const std::size_t p = static_cast<std::size_t>(size());
    first_.reserve(std::max<std::size_t>(1, first_bytes_ / sizeof(T)));
    per_rank_ = std::max<std::size_t>(1, block_ / 2 / sizeof(T) / p);
    filled_.assign(p, 0);
    counts_.assign(p, 0);
    for (std::size_t r = 0; r < p; ++r) offsets_.push_back(r * per_rank_ * sizeof(T));
  }

  void push(const T& v) {
    if (!splitters_) {
      if (creator_) return creator_->push(v); // one rank
      first_.push_back(v);
      if (first_.size() == first_.capacity()) agree();
      return;
    }
    route(v);
  }

  /// Agrees on the splitters now, from the elements pushed so far, unless they are
  /// agreed (a collective operation, the first of every rank: each rank calls it, or
  /// fills its first-elements buffer, once). For a caller whose elements come in key
  /// order: it pushes an even sample of them first.
  void agree_now() {
    if (size() > 1 && !splitters_) agree();
  }

  /// This rank's range of the keys, sorted into runs (a collective operation: every rank
  /// calls it).
  algo::sorted_runs<T> result() {
    if (size() == 1) return creator_->result();
    if (!splitters_) agree();
    while (!exchange(/*ended=*/true)) { // rounds until every rank's input has ended
    }
    return creator_->result();
  }

private:
  /// The splitters from every rank's sample of its first elements; then those elements
  /// go where they belong.
  void agree() {
    std::vector<T> sample;
    const std::size_t n = first_.size(), k = std::min(n, samples_per_rank);
    for (std::size_t i = 0; i < k; ++i) sample.push_back(first_[i * n / k]);
    const std::vector<std::byte> gathered = world().all_gather(std::as_bytes(std::span<const T>(sample)));
    std::vector<T> all(gathered.size() / sizeof(T));
    if (!all.empty()) std::memcpy(all.data(), gathered.data(), gathered.size());
    std::sort(all.begin(), all.end(), cmp_);
    splitters_.emplace();
    const std::size_t p = static_cast<std::size_t>(size());
    if (!all.empty()) // else no input anywhere: everything (nothing) to rank 0
      for (std::size_t i = 1; i < p; ++i) splitters_->push_back(all[i * all.size() / p]);
    creator_.emplace(memory_ - first_bytes_ - 2 * block_, cmp_, combine_, opt_);
    send_.resize(p * per_rank_);
    for (const T& v : first_) route(v);
    std::vector<T>().swap(first_);
  }

  void route(const T& v) {
    const std::size_t r =
        static_cast<std::size_t>(std::upper_bound(splitters_->begin(), splitters_->end(), v, cmp_) - splitters_->begin());
    send_[r * per_rank_ + filled_[r]] = v;
    if (++filled_[r] == per_rank_) exchange(/*ended=*/false);
  }

  /// One round: every rank sends what its buffers hold and pushes what it receives into
  /// its run formation. Returns whether every rank's input has ended.
  bool exchange(bool ended) {
    for (std::size_t r = 0; r < filled_.size(); ++r) counts_[r] = filled_[r] * sizeof(T);
    world().all_to_all(reinterpret_cast<const std::byte*>(send_.data()), counts_, offsets_, received_);
    std::fill(filled_.begin(), filled_.end(), 0);
    for (std::size_t at = 0; at < received_.size(); at += sizeof(T)) {
      T v;
      std::memcpy(&v, received_.data() + at, sizeof(T));
      creator_->push(v);
    }
    return world().sum(ended ? 0 : 1) == 0;
  }

  std::size_t memory_;
  Cmp cmp_;
  Combine combine_;
  algo::sort_options opt_;
  std::size_t block_;
  std::size_t first_bytes_ = 0; // the first elements' buffer
  std::size_t per_rank_ = 0;    // elements a round's buffer holds for each rank
  std::optional<algo::runs_creator<T, Cmp, Combine>> creator_;
  std::vector<T> first_;                        // the first elements, until the splitters are agreed
  std::optional<std::vector<T>> splitters_;     // agreed: P - 1 keys
  std::vector<T> send_;                         // a round's buffer for each rank: per_rank_ elements each
  std::vector<std::size_t> filled_;             // the elements in each
  std::vector<std::size_t> counts_, offsets_;   // their bytes, and where each starts in send_
  std::vector<std::byte> received_;             // a round's elements from every rank
};

} // namespace flow::ranks
