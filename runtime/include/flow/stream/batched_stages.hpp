#pragma once
// batched_stages: a stretch of a pipeline's maps and filters run on several threads, its
// output in the order one thread gives. The compiler uses it for a stretch whose
// functions cost enough an element and keep no state (plan/batches.cpp); the generated
// code inlines the stretch's functions into `stages`, which puts out each element that
// leaves the stretch through `out` and counts the elements each stage passes on.
//
//   auto stages = [&](const Line& l, auto&& out, std::uint64_t* counted) {
//     const Word w = parse(l);      // a map
//     ++counted[0];
//     if (w.len > 3) out(w);        // a filter: the stretch's last stage
//   };
//   flow::stream::batched_stages<Line, Word, decltype(stages)> b(threads, memory, 1, stages);
//   for (...) b.push(line, emit, stopped);  // emit(w) for each word, in input order
//   b.finish(emit, stopped);
//
// On one thread each element goes through `stages` as it comes, straight to `emit`. On
// more, push() gathers a batch — a share of plan::stage_batch_share elements for each
// thread — and then each thread runs `stages` over its contiguous share into an output
// buffer of its own, and the calling thread hands the buffers' elements to `emit` share
// by share: the order and the elements of one thread.
//
// A function that throws (checked arithmetic, a bad value to parse) stops its share
// there: the elements before it in input order are emitted, then the first exception is
// rethrown — the error one thread meets first. `stopped()` (a loop downstream that has
// ended with `break`) ends the emitting, and drops the batch's rest and its error, which
// one thread would never have computed.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <vector>

#include "flow/algo/parallel.hpp"
#include "flow/plan/memory_plan.hpp"

namespace flow::stream {

template <class In, class Out, class Stages> class batched_stages {
public:
  /// `memory_bytes`: what the plan gives it (plan::stage_batch_bytes for `threads`);
  /// `counted_stages`: how many counts `stages` keeps (its stages before the last).
  batched_stages(unsigned threads, std::uint64_t memory_bytes, std::size_t counted_stages, Stages stages)
      : threads_(std::max(1u, threads)), stages_(std::move(stages)), totals_(counted_stages) {
    if (threads_ == 1) return;
    constexpr std::uint64_t element_bytes = sizeof(In) + sizeof(Out);
    share_ = static_cast<std::size_t>(std::max<std::uint64_t>(1, memory_bytes / threads_ / element_bytes));
    team_.emplace(threads_);
    batch_ = share_ * threads_;
    inputs_.reserve(batch_);
    outputs_.resize(threads_);
    for (std::vector<Out>& o : outputs_) o.reserve(share_);
    counts_.assign(threads_ * counted_stages, 0);
    errors_.resize(threads_);
  }

  /// Puts x into the stretch; emit(y) gets each element y that leaves it, in order, once
  /// a batch is full (at once on one thread).
  template <class Emit, class Stopped> void push(const In& x, Emit&& emit, Stopped&& stopped) {
    if (threads_ == 1) {
      stages_(x, emit, totals_.data());
      return;
    }
    inputs_.push_back(x);
    if (inputs_.size() == batch_) run(emit, stopped);
  }
  /// Runs what push() has gathered: call it after the last push().
  template <class Emit, class Stopped> void finish(Emit&& emit, Stopped&& stopped) {
    if (!inputs_.empty()) run(emit, stopped);
  }
  /// The elements stage i of the stretch has passed on so far (the last stage's are the
  /// emitted ones).
  std::uint64_t counted(std::size_t i) const { return totals_[i]; }

private:
  template <class Emit, class Stopped> void run(Emit& emit, Stopped& stopped) {
    const std::size_t n = inputs_.size(), stages = totals_.size();
    team_->run([&](unsigned t) {
      std::vector<Out>& out = outputs_[t];
      out.clear();
      std::uint64_t* counted = counts_.data() + t * stages;
      std::fill(counted, counted + stages, 0);
      errors_[t] = algo::run_catching([&] {
        auto put = [&out](const Out& y) { out.push_back(y); };
        for (std::size_t i = n * t / threads_, end = n * (t + 1) / threads_; i < end; ++i) stages_(inputs_[i], put, counted);
      });
    });
    inputs_.clear();
    for (unsigned t = 0; t < threads_; ++t) {
      for (std::size_t s = 0; s < stages; ++s) totals_[s] += counts_[t * stages + s];
      for (const Out& y : outputs_[t]) {
        if (stopped()) return;
        emit(y);
      }
      if (errors_[t] && !stopped()) std::rethrow_exception(errors_[t]);
      if (errors_[t]) return;
    }
  }

  const unsigned threads_;
  Stages stages_;
  std::vector<std::uint64_t> totals_;
  std::size_t share_ = 0, batch_ = 0; // elements of a thread's share, of a batch
  std::optional<algo::thread_team> team_;
  std::vector<In> inputs_;
  std::vector<std::vector<Out>> outputs_;
  std::vector<std::uint64_t> counts_;
  std::vector<std::exception_ptr> errors_;
};

} // namespace flow::stream
