#pragma once
// The external sorter in its two forms:
//  - sorter<T, Cmp>: push everything, finish(), then read the sorted stream (empty / * /
//    ++ / batch / advance). Run formation and merging happen in the same object.
//  - runs_creator<T, Cmp> + runs_merger<T, Cmp> (runs_creator.hpp, runs_merger.hpp): the
//    same two halves as separate objects, so they can live in different phases; the
//    sorted_runs between them can also be kept and merged later (e.g. to feed a loop).
// Both never use more buffer and metadata memory than the byte budget they are given;
// all their I/O goes through flow::io requests, so flow::io::scoped_stats measures it.
//
//   flow::algo::sorter<Edge, edge_order> s(256 << 20);
//   for (...) s.push(e);
//   s.finish();
//   for (; !s.empty(); ++s) use(*s);
//
// sort_estimate<T, Cmp>(n, memory) tells in advance what the sorter will do with n
// elements in that budget (in memory or not, runs, merge passes, I/O bytes), the
// numbers a planner compares with flow::io::scoped_stats afterwards.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>

#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/pull.hpp"

namespace flow::algo {

struct sort_estimate_result {
  bool in_memory = false;       ///< nothing is written
  std::uint64_t runs = 0;       ///< runs written by run formation
  std::size_t fan_in = 0;       ///< runs the final merge takes at once
  unsigned merge_passes = 0;    ///< passes over the data that went through most (0 in memory)
  std::uint64_t io_bytes = 0;   ///< bytes read plus written
  std::size_t block_bytes = 0;
  bool last_run_in_memory = false; ///< the last run is merged from memory, never written
};

/// What a sorter (or stream::sort) does with n elements of T within memory_bytes: the
/// shared model (flow/plan/sort_model.hpp) with the sorter's choices — both halves get the
/// whole budget and the last run stays in memory when the merge can afford it. Whole
/// blocks: the last block of a run is padded. Throws like the sorter if the budget holds
/// no run.
template <class T, class Cmp>
sort_estimate_result sort_estimate(std::uint64_t n, std::size_t memory_bytes, sort_options opt = {}) {
  (void)plan_run_formation<T, Cmp>(memory_bytes, opt); // the sorter's error for a budget too small
  const plan::sort_cost c = plan::sort_estimate(sort_setup_of<T, Cmp>(opt), n, memory_bytes, memory_bytes, true);
  return {c.in_memory, c.runs, c.fan_in, c.passes, c.io_bytes(), c.block_bytes, c.last_run_in_memory};
}

template <class T, class Cmp> class sorter : public pull_through<sorter<T, Cmp>, T> {
public:
  /// A sorter of T by Cmp within `memory_bytes` (see runs_creator / runs_merger for how
  /// the budget is used in each phase).
  explicit sorter(std::size_t memory_bytes, Cmp cmp = Cmp(), sort_options opt = {})
      : memory_(memory_bytes), cmp_(cmp), opt_(opt) {
    if (!opt_.team) {
      team_ = std::make_unique<thread_team>(opt_.thread_count());
      opt_.team = team_.get();
    }
    opt_.keep_last_run = true; // merged right after, with the same budget
    creator_.emplace(memory_bytes, cmp_, opt_);
  }

  void push(const T& v) { creator_->push(v); }
  void push(std::span<const T> items) { creator_->push(items); }
  template <class Node> void push_all(Node& in) { creator_->push_all(in); }

  /// Ends the input; the sorted stream can be read after this. Call once.
  void finish() {
    if (!creator_) throw std::logic_error("flow: sorter::finish called twice");
    sorted_runs<T> runs = creator_->result();
    formation_ = creator_->timings();
    creator_.reset();
    merger_.emplace(std::move(runs), memory_, cmp_, opt_);
  }

  /// Elements pushed (before finish) or in total (after).
  std::uint64_t size() const noexcept { return merger_ ? merger_->size() : creator_->size(); }
  unsigned merge_passes() const noexcept { return merger_ ? merger_->merge_passes() : 0; }
  /// Where the time went: run formation's parts, then merging's so far.
  sort_timings timings() const noexcept {
    sort_timings t = merger_ ? merger_->timings() : creator_->timings();
    if (merger_) {
      t.fill_wait = formation_.fill_wait;
      t.run_sort = formation_.run_sort;
      t.scratch_wait = formation_.scratch_wait;
    }
    return t;
  }

private:
  friend pull_through<sorter, T>;
  /// The sorted stream (after finish()).
  runs_merger<T, Cmp>& inner() noexcept { return *merger_; }
  const runs_merger<T, Cmp>& inner() const noexcept { return *merger_; }

  std::size_t memory_;
  Cmp cmp_;
  sort_options opt_;
  std::unique_ptr<thread_team> team_;
  std::optional<runs_creator<T, Cmp>> creator_;
  std::optional<runs_merger<T, Cmp>> merger_;
  sort_timings formation_;
};

} // namespace flow::algo
