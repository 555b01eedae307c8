#pragma once
// batched_stages: a stretch of a pipeline's maps and filters, or a for stage, run on
// several threads, its output in the order one thread gives. The compiler uses it for a
// stretch whose functions cost enough an element and keep no state (plan/batches.cpp); the generated
// code inlines the stretch's functions into `stages`, which puts out each element that
// leaves the stretch through `out` and counts the elements each stage passes on; the
// element's position (its number in the stretch's input) is where a first stage that
// draws rand() draws (flow/program/rand.hpp).
//
//   auto stages = [&](const Line& l, std::uint64_t position, auto&& out, std::uint64_t* counted) {
//     const Word w = parse(l);      // a map
//     ++counted[0];
//     if (w.len > 3) out(w);        // a filter: the stretch's last stage
//   };
//   flow::stream::batched_stages<Line, Word, decltype(stages)> b(threads, memory, 1, stages);
//   for (...) b.push(line, emit, stopped);  // emit(w) for each word, in input order
//   b.finish(emit, stopped);
//
// On one thread each element goes through `stages` as it comes, straight to `emit`. On
// more, push() gathers a batch — half its memory, a share for each thread (the plan
// gives it plan::stage_batch_planned_threads shares a batch at any thread count) — and
// the batch is cut into chunks that the threads take one after another, each into its
// own part of the batch's output buffer. Two batches take turns: while the helper threads
// compute one, the calling thread hands the previous one's outputs to `emit`, chunk by
// chunk — the order and the elements of one thread — and fills the next, then computes
// chunks of the running batch until none is left. So the stretch's source and its
// downstream, which run on the calling thread, overlap the stretch's work. A stream
// shorter than a batch is computed on the calling thread: no threads are started for it.
//
// A for stage puts out any number of elements for each it takes (`outputs_per_input`
// is what the plan expects, at least 1): a chunk's outputs have room for that many per
// input. A chunk whose outputs would overflow their room stops before the element that
// overflowed them (dropping what that element put out), and the calling thread computes
// the chunk's rest itself as it emits it — the same elements, in the same order. Each
// batch then takes as many inputs as the outputs per input seen so far leave room for
// (at most a full batch), so that overflows stay rare whatever the plan expected.
//
// A stretch that feeds a reduce whose combine is associative (a sum, a min, a pick of the
// first: plan/batches.cpp decides) may fold each chunk's outputs by the reduce's key on
// the thread that computed them (`folds_outputs`, and a fold_by_key given to push() and
// finish()): what leaves the stretch is then each key's combined value of the chunk, at
// its first output, in the order of the keys' first outputs. The reduce combines those
// in order, which gives what it gives of the unfolded outputs, but inserts a line's words
// once per chunk instead of once per word. folded() counts the outputs folded away.
//
// A function that throws (checked arithmetic, a bad value to parse) stops its chunk
// there: the elements before it in input order are emitted, then the first exception is
// rethrown — the error one thread meets first. `stopped()` (a loop downstream that has
// ended with `break`) ends the emitting, and drops the batch's rest and its error, which
// one thread would never have computed.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "flow/algo/parallel.hpp"
#include "flow/plan/memory_plan.hpp"

namespace flow::stream {

/// A chunk's outputs folded by a key: `hash` and `same` of the reduce's keys, `combine`
/// its associative combine (batched_stages, above).
template <class Hash, class Same, class Combine> struct fold_by_key {
  Hash hash;
  Same same;
  Combine combine;
};
template <class Hash, class Same, class Combine>
fold_by_key<Hash, Same, Combine> folded_by(Hash hash, Same same, Combine combine) {
  return {std::move(hash), std::move(same), std::move(combine)};
}
/// No folding: the outputs leave the stretch as they were put out.
struct no_fold {};
/// batched_stages' constructor flag: its outputs are folded (room for each thread's table).
inline constexpr bool folds_outputs = true;

template <class In, class Out, class Stages> class batched_stages {
public:
  /// `memory_bytes`: what the plan gives it (plan::stage_batch_bytes of its
  /// element bytes sizeof(In) + outputs_per_input * sizeof(Out)); `counted_stages`: how
  /// many counts `stages` keeps (its stages before the last); `outputs_per_input`: the
  /// room for outputs each input has (1: a map and filter stretch, which puts out at most
  /// one; a for stage's stretch has only itself, and no counted stages); `folds`
  /// (folds_outputs): push() and finish() will be given a fold_by_key.
  batched_stages(unsigned threads, std::uint64_t memory_bytes, std::size_t counted_stages, Stages stages,
                 std::size_t outputs_per_input = 1, bool folds = false)
      : threads_(std::max(1u, threads)), stages_(std::move(stages)), totals_(counted_stages),
        fanout_(std::max<std::size_t>(1, outputs_per_input)) {
    if (fanout_ > 1 && counted_stages > 0)
      throw std::logic_error("flow: batched_stages: a stretch that puts out several elements per input counts none");
    if (threads_ == 1) return;
    // Folding: each thread's table of a chunk's outputs, at most 4 slots of 4 bytes per
    // output of a chunk (at most a quarter of a thread's share of a batch) — 2 bytes
    // more per output of each of the two batches.
    const std::uint64_t element_bytes = sizeof(In) + fanout_ * (sizeof(Out) + (folds ? 2 : 0));
    const std::uint64_t share = std::max<std::uint64_t>(1, memory_bytes / 2 / threads_ / element_bytes);
    // a batch: whole chunks, so that each chunk's outputs have the same room
    chunk_ = std::max<std::size_t>(1, static_cast<std::size_t>(share / 4));
    chunks_ = static_cast<std::size_t>(share * threads_) / chunk_;
    batch_ = target_ = chunks_ * chunk_;
    counts_stride_ = (counted_stages / 8 + 2) * 8; // a chunk's counts: a cache line of their own
    for (batch& b : batches_) { // arrays, not vectors: a std::vector<bool> has no data()
      b.inputs = std::make_unique<In[]>(batch_);
      b.outputs = std::make_unique<Out[]>(batch_ * fanout_);
      b.produced.resize(chunks_);
      b.made.resize(chunks_);
      b.stops.resize(chunks_);
      b.counts.resize(chunks_ * counts_stride_);
      b.errors.resize(chunks_);
    }
    if (folds) {
      slots_ = 2;
      while (slots_ < 2 * chunk_ * fanout_) slots_ *= 2;
      tables_.resize(threads_);
      for (auto& t : tables_) t = std::make_unique<std::uint32_t[]>(slots_);
    }
  }
  /// Waits for a batch still being computed (an exception left it running).
  ~batched_stages() {
    if (running_ < 0) return;
    finish_computing(batches_[running_], no_fold{});
  }
  batched_stages(const batched_stages&) = delete;
  batched_stages& operator=(const batched_stages&) = delete;

  /// Puts x into the stretch; emit(y) gets each element y that leaves it, in order (at
  /// once on one thread; a batch later on several).
  /// `fold`: no_fold, or (constructed with folds_outputs) the same fold_by_key on every call.
  template <class Emit, class Stopped, class Fold = no_fold>
  void push(const In& x, Emit&& emit, Stopped&& stopped, const Fold& fold = {}) {
    if (threads_ == 1) {
      stages_(x, pushed_++, emit, totals_.data());
      return;
    }
    batch& b = batches_[filling_];
    b.inputs[b.size++] = x;
    if (b.size >= target_) next_batch(emit, stopped, fold); // >=: a for stage's target may shrink as a batch fills
  }
  /// Computes and emits what push() has gathered: call it after the last push().
  template <class Emit, class Stopped, class Fold = no_fold>
  void finish(Emit&& emit, Stopped&& stopped, const Fold& fold = {}) {
    if (threads_ == 1) return;
    batch& rest = batches_[filling_];
    if (!team_ && rest.size > 0) { // less than a batch in all: no threads started for it
      prepare(rest);
      compute(rest, 0, fold);
      emit_outputs(rest, emit, stopped);
      return;
    }
    if (rest.size > 0) next_batch(emit, stopped, fold);
    if (running_ < 0) return;
    batch& last = batches_[running_];
    finish_computing(last, fold);
    emit_outputs(last, emit, stopped);
  }
  /// The elements stage i of the stretch has passed on so far (the last stage's are the
  /// emitted ones).
  std::uint64_t counted(std::size_t i) const { return totals_[i]; }
  /// The outputs that folding combined into an earlier one of their chunk, so far: with
  /// the emitted ones, all that the stretch put out.
  std::uint64_t folded() const { return folded_; }

private:
  struct batch {
    std::unique_ptr<In[]> inputs;
    std::size_t size = 0;               // inputs in it
    std::unique_ptr<Out[]> outputs;     // chunk c's outputs from c * chunk_ * fanout_ on
    std::vector<std::size_t> produced;  // outputs of each chunk (after folding)
    std::vector<std::size_t> made;      // outputs of each chunk before folding
    std::vector<std::size_t> stops;     // each chunk's first input not computed (its outputs overflowed)
    std::vector<std::uint64_t> counts;  // each chunk's counts of each counted stage (counts_stride_ apart)
    std::vector<std::exception_ptr> errors;
    std::uint64_t first_position = 0;
    std::size_t chunks = 0, chunk = 0; // chunks in it, inputs of each (the last may have fewer)
    std::atomic<std::size_t> next_chunk{0};
  };

  /// The batch being filled is full (or the last): it starts on the helpers, and the one
  /// they were computing is finished and emitted while they work.
  template <class Emit, class Stopped, class Fold> void next_batch(Emit& emit, Stopped& stopped, const Fold& fold) {
    const int full = filling_, previous = 1 - filling_;
    const bool previous_running = running_ == previous;
    if (previous_running) finish_computing(batches_[previous], fold);
    start(batches_[full], fold);
    if (previous_running) emit_outputs(batches_[previous], emit, stopped);
    batches_[previous].size = 0;
    filling_ = previous;
  }

  void prepare(batch& b) {
    b.first_position = pushed_;
    pushed_ += b.size;
    // as many chunks as a full batch has, smaller where the batch is (the last, or one
    // that a for stage's outputs make short)
    b.chunk = std::min(chunk_, (b.size + chunks_ - 1) / chunks_);
    b.chunks = b.size == 0 ? 0 : (b.size + b.chunk - 1) / b.chunk;
    b.next_chunk.store(0, std::memory_order_relaxed);
  }
  template <class Fold> void start(batch& b, const Fold& fold) {
    prepare(b);
    if (!team_) team_.emplace(threads_); // at the first full batch: a short stream (a loop's
                                         // round) starts no threads
    running_ = static_cast<int>(&b - batches_);
    // the fold by value: a batch left running by an exception is waited for by the
    // destructor, after the generated code's fold (declared later) has gone
    team_->start([this, &b, fold](unsigned thread) { compute(b, thread, fold); });
  }
  /// The calling thread computes chunks until none is left, then waits for the helpers.
  /// (The destructor's no_fold: a batch left by an exception is not emitted.)
  template <class Fold> void finish_computing(batch& b, const Fold& fold) {
    compute(b, 0, fold);
    team_->wait();
    running_ = -1;
  }
  /// Folds out[0, n) in place by fold's key, with `thread`'s table; returns the outputs
  /// left: each key's combined value at its first output, in the order of those.
  template <class Fold> std::size_t fold_chunk(Out* out, std::size_t n, unsigned thread, const Fold& fold) {
    if constexpr (std::is_same_v<Fold, no_fold>) {
      return n;
    } else {
      if (tables_.empty()) throw std::logic_error("flow: batched_stages: a fold given, but not constructed with folds_outputs");
      std::uint32_t* table = tables_[thread].get(); // slot: an output's index + 1; 0: empty
      std::fill(table, table + slots_, 0u);
      const std::size_t mask = slots_ - 1;
      std::size_t kept = 0;
      for (std::size_t i = 0; i < n; ++i) {
        // the hash's high bits: its low ones may be the key's own
        std::size_t slot = static_cast<std::size_t>(fold.hash(out[i]) >> 32) & mask;
        for (;; slot = (slot + 1) & mask) {
          if (table[slot] == 0) {
            if (kept != i) out[kept] = out[i];
            table[slot] = static_cast<std::uint32_t>(++kept);
            break;
          }
          Out& first = out[table[slot] - 1];
          if (fold.same(first, out[i])) {
            first = fold.combine(first, out[i]);
            break;
          }
        }
      }
      return kept;
    }
  }
  template <class Fold> void compute(batch& b, unsigned thread, const Fold& fold) {
    const std::size_t stages = totals_.size();
    for (std::size_t c; (c = b.next_chunk.fetch_add(1, std::memory_order_relaxed)) < b.chunks;) {
      Out* out = b.outputs.get() + c * chunk_ * fanout_;
      const std::size_t room = chunk_ * fanout_;
      std::size_t produced = 0, before = 0; // on the stack: chunks of other threads write beside b.produced[c]
      bool overflowed = false;
      std::uint64_t* counted = b.counts.data() + c * counts_stride_;
      std::fill(counted, counted + stages, 0);
      auto put = [&](const Out& y) {
        if (produced < room) out[produced++] = y;
        else overflowed = true;
      };
      const std::size_t end = std::min(b.size, (c + 1) * b.chunk);
      std::size_t i = c * b.chunk;
      b.errors[c] = algo::run_catching([&] {
        for (; i < end && !overflowed; ++i) {
          before = produced;
          stages_(b.inputs[i], b.first_position + i, put, counted);
        }
      });
      if (overflowed) { // the element before i (or i, if it threw after overflowing) is computed again
        if (!b.errors[c]) --i;
        b.errors[c] = nullptr;
        produced = before;
      }
      b.made[c] = produced;
      b.produced[c] = fold_chunk(out, produced, thread, fold);
      b.stops[c] = overflowed ? i : end;
    }
  }
  template <class Emit, class Stopped> void emit_outputs(const batch& b, Emit& emit, Stopped& stopped) {
    const std::size_t stages = totals_.size();
    std::size_t outputs = 0;
    for (std::size_t c = 0; c < b.chunks; ++c) {
      for (std::size_t s = 0; s < stages; ++s) totals_[s] += b.counts[c * counts_stride_ + s];
      const Out* out = b.outputs.get() + c * chunk_ * fanout_;
      outputs += b.made[c];
      folded_ += b.made[c] - b.produced[c];
      for (std::size_t k = 0; k < b.produced[c]; ++k) {
        if (stopped()) return;
        emit(out[k]);
      }
      if (b.errors[c] && !stopped()) std::rethrow_exception(b.errors[c]);
      if (b.errors[c]) return;
      // the chunk's rest, whose outputs overflowed its room: here, straight to emit
      auto put = [&](const Out& y) {
        ++outputs;
        if (!stopped()) emit(y);
      };
      for (std::size_t i = b.stops[c], end = std::min(b.size, (c + 1) * b.chunk); i < end && !stopped(); ++i)
        stages_(b.inputs[i], b.first_position + i, put, nullptr);
    }
    if (fanout_ > 1 && b.size > 0) { // room for 4/3 of the outputs per input seen in this batch
      const double per_input = static_cast<double>(outputs) / static_cast<double>(b.size);
      const double fits = 0.75 * static_cast<double>(batch_ * fanout_) / std::max(per_input, 1.0);
      target_ = std::clamp<std::size_t>(static_cast<std::size_t>(fits), chunks_, batch_);
    }
  }

  const unsigned threads_;
  Stages stages_;
  std::vector<std::uint64_t> totals_;
  std::uint64_t pushed_ = 0;         // elements put into batches so far: the next batch's first position
  const std::size_t fanout_;          // room for outputs per input
  std::size_t batch_ = 0, chunk_ = 0; // elements of a batch, of a chunk at most
  std::size_t chunks_ = 0;            // chunks of a full batch (every batch has at most as many)
  std::size_t target_ = 0;            // inputs a batch takes before it is computed (batch_ but for a for stage)
  std::size_t counts_stride_ = 0;
  batch batches_[2];
  int filling_ = 0, running_ = -1;   // the batch push() fills; the one being computed (-1: none)
  std::vector<std::unique_ptr<std::uint32_t[]>> tables_; // folding: each thread's table of a chunk's outputs
  std::size_t slots_ = 0;                                // slots of each table (a power of 2)
  std::uint64_t folded_ = 0;
  std::optional<algo::thread_team> team_;
};

} // namespace flow::stream
