#pragma once
// Merging sorted runs into one sorted stream (Dementiev & Sanders' overlapped multiway
// merge, thesis section 3.5.1):
//  - the prediction sequence sigma lists every block of every run in the order of its
//    first element (the merger needs a block exactly when its first element becomes the
//    smallest unread one);
//  - block reads are issued in sigma order into a pool of block buffers as soon as one
//    is free (prefetching), so the disk works ahead while the threads merge;
//  - blocks are "admitted" to the merge in sigma order; everything in admitted blocks
//    that is <= the first element f* of the next unadmitted block can be output, because
//    no unread block holds anything smaller. Each batch of such elements is merged by all
//    threads of a team at once (exact multiway splitting, then a loser tree per thread).
// A run's disk block is freed as soon as it has been read. When the fan-in that fits in
// the budget is smaller than the number of runs, the smallest runs are merged into longer
// runs first (only as many as needed, so only part of the data takes a second pass);
// those passes report their progress to flow::progress (flow/progress.hpp).
//
//   flow::algo::runs_merger<Edge, edge_order> m(std::move(runs), 256 << 20);
//   for (; !m.empty(); ++m) use(*m);
//
// Memory, all within the byte budget: the runs' metadata (held by the merger), sigma (8
// bytes per block), an output buffer of up to 4 blocks, and block buffers for the rest
// (per run at least one, plus prefetch buffers); intermediate passes also use 2 write
// buffers.
//
// Combining (flow/algo/combine.hpp): runs_merger<T, Cmp, Combine> with a combiner folds
// equal elements with combine(a, b) in the runs written by intermediate passes (so they
// are as short as their number of keys) and in its output, which then holds each key
// exactly once. Constructed as runs_merger(runs, memory_bytes, Cmp(), combine, opt). The
// output buffer has one element more (the last key of a batch is held back until the next
// batch shows it has ended). The default Combine, no_combine, merges as before.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/algo/combine.hpp"
#include "flow/algo/multiway_merge.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/algo/runs.hpp"
#include "flow/algo/sort_traits.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/request.hpp"
#include "flow/progress.hpp"
#include "flow/pull.hpp"

namespace flow::algo {

namespace detail {

template <class T, class Cmp> class merge_engine {
public:
  /// Merges the runs (their blocks are freed and invalidated as they are read) with
  /// `buffers` block buffers (>= number of runs; those beyond read ahead). With one per
  /// run it still makes progress: a run holding two blocks has its first all below the
  /// next block to read, and a run without one has a buffer free.
  merge_engine(std::vector<run_info<T>*> runs, const block_geometry& g, std::size_t buffers,
               mng::block_manager& bm, const Cmp& cmp, thread_team& team,
               std::span<const segment<T>> in_memory = {})
      : runs_(std::move(runs)), g_(g), bm_(bm), cmp_(cmp), less_{cmp}, team_(team),
        memory_(g.bytes * buffers) {
    for (const auto* r : runs_) remaining_ += r->size;
    // sorted sequences already in memory take part from the start, without a buffer
    for (const auto& m : in_memory) {
      if (m.empty()) continue;
      active_.push_back({m.begin, m.end, no_buffer});
      remaining_ += m.size();
    }
    // The prediction sequence, built as it is consumed: every run's blocks in the order
    // of their first elements (ties by run, then block), merged from the runs' firsts
    // (in memory, or a page at a time from disk) by a heap of the runs' next blocks.
    cursors_.reserve(runs_.size());
    for (std::uint32_t i = 0; i < runs_.size(); ++i) {
      cursors_.emplace_back(*runs_[i]);
      if (!cursors_.back().done()) heap_.push_back(i);
      if (runs_[i]->firsts.spilled() && !spilled_firsts_) spilled_firsts_ = std::make_unique<T[]>(buffers);
    }
    std::make_heap(heap_.begin(), heap_.end(), later_);
    free_.reserve(buffers);
    for (std::size_t i = buffers; i-- > 0;) free_.push_back(i);
    issue();
  }
  ~merge_engine() {
    for (auto& p : inflight_) io::wait_quietly(p.request);
  }
  merge_engine(const merge_engine&) = delete;
  merge_engine& operator=(const merge_engine&) = delete;

  std::uint64_t remaining() const noexcept { return remaining_; }
  const sort_timings& timings() const noexcept { return timings_; }

  /// Merges up to `cap` (> 0) of the next elements into out; returns how many (0: done).
  std::size_t next(T* out, std::size_t cap) {
    if (remaining_ == 0) return 0;
    const double waited_before = timings_.read_wait;
    std::size_t avail = count_available();
    while (blocks_to_admit() && avail < cap) {
      if (inflight_.empty()) break; // the next block is not even requested: consume first
      if (avail >= cap / 4 && !inflight_.front().request->poll()) break; // don't wait now
      admit();
      avail = count_available();
    }
    if (avail == 0) {
      throw std::logic_error("flow: runs merger: no element can be output (internal error)");
    }
    std::vector<segment<T>> segs(active_.size());
    if (avail > cap) {
      for (std::size_t i = 0; i < active_.size(); ++i) segs[i] = {active_[i].pos, active_[i].pos + counts_[i]};
      multiway_split<T, Cmp>(segs, cap, cmp_, counts_.data());
      avail = cap;
    }
    for (std::size_t i = 0; i < active_.size(); ++i) segs[i] = {active_[i].pos, active_[i].pos + counts_[i]};
    // While the merge mostly waits for the disk, a second merging thread only takes CPU
    // time from the I/O path: merge on one thread while recent batches waited longer than
    // they merged, on all threads again once waits are under an eighth of merging — at
    // most the merge_threads its arrays are planned for.
    wait_avg_ = 0.8 * wait_avg_ + 0.2 * (timings_.read_wait - waited_before);
    if (single_thread_ ? wait_avg_ < merge_avg_ / 8 : wait_avg_ > merge_avg_) single_thread_ = !single_thread_;
    const auto t = std::chrono::steady_clock::now();
    parallel_merge<T, Cmp>(segs, out, cmp_, team_, 4096, single_thread_ ? 1u : plan::merge_threads(g_));
    const double merged = detail::seconds_since(t);
    merge_avg_ = 0.8 * merge_avg_ + 0.2 * merged;
    timings_.merge += merged;
    // advance; release consumed blocks
    std::size_t j = 0;
    for (std::size_t i = 0; i < active_.size(); ++i) {
      active_[i].pos += counts_[i];
      if (active_[i].pos == active_[i].end) {
        if (active_[i].buffer != no_buffer) free_.push_back(active_[i].buffer);
      } else {
        active_[j++] = active_[i];
      }
    }
    active_.resize(j);
    remaining_ -= avail;
    issue();
    return avail;
  }

private:
  struct entry {
    std::uint32_t run;
    std::size_t block;
  };
  struct pending { // a block read in flight, in the prediction sequence's order
    std::size_t buffer;
    io::request_ptr request;
    entry block;
    const T* first; // in the run's firsts, or (spilled) in spilled_firsts_[buffer]
  };
  // Orders the heap of runs (a max-heap, so "later" puts the next block on top): by the
  // first element of each run's next block, ties by run.
  struct later {
    const merge_engine* e;
    bool operator()(std::uint32_t a, std::uint32_t b) const {
      const T& fa = e->cursors_[a].first();
      const T& fb = e->cursors_[b].first();
      if (e->less_(fb, fa)) return true;
      if (e->less_(fa, fb)) return false;
      return a > b;
    }
  };
  struct active {
    const T* pos;
    const T* end;
    std::size_t buffer;
  };
  static constexpr std::size_t no_buffer = static_cast<std::size_t>(-1);

  T* buffer(std::size_t i) { return reinterpret_cast<T*>(memory_.data() + i * g_.bytes); }
  // Whether blocks are left to admit: read or not yet requested.
  bool blocks_to_admit() const noexcept { return !inflight_.empty() || !heap_.empty(); }

  void issue() {
    while (!free_.empty() && !heap_.empty()) {
      const std::size_t b = free_.back();
      std::pop_heap(heap_.begin(), heap_.end(), later_);
      const std::uint32_t run = heap_.back();
      firsts_cursor<T>& c = cursors_[run];
      const entry e{run, c.block()};
      const mng::block_id id = runs_[run]->block(e.block, g_.bytes);
      io::request_ptr r = id.storage->file().aread(buffer(b), id.offset, g_.bytes);
      free_.pop_back();
      const T* first = &c.first();
      if (runs_[run]->firsts.spilled()) first = &(spilled_firsts_[b] = c.first()); // the cursor moves on
      inflight_.push_back({b, std::move(r), e, first});
      c.advance();
      if (c.done()) {
        heap_.pop_back();
      } else {
        std::push_heap(heap_.begin(), heap_.end(), later_);
      }
    }
  }

  void admit() {
    pending p = std::move(inflight_.front());
    inflight_.pop_front();
    const auto t = std::chrono::steady_clock::now();
    try {
      p.request->wait();
      timings_.read_wait += detail::seconds_since(t);
    } catch (...) {
      free_.push_back(p.buffer);
      throw;
    }
    const entry e = p.block;
    run_info<T>& run = *runs_[e.run];
    const std::size_t len =
        e.block + 1 == run.block_count()
            ? static_cast<std::size_t>(run.size - std::uint64_t{e.block} * g_.elements)
            : g_.elements;
    const T* b = buffer(p.buffer);
    active_.push_back({b, b + len, p.buffer});
    if (run.freed != e.block) throw std::logic_error("flow: runs merger: blocks of a run out of order");
    bm_.free(run.block(e.block, g_.bytes)); // its disk space is free once read
    run.freed = static_cast<std::uint32_t>(e.block + 1);
    if (run.freed == run.block_count()) run.release_spilled(bm_); // its firsts were read when it was requested
  }

  // counts_[i]: elements of active block i that are <= f* (all if no block is left).
  std::size_t count_available() {
    counts_.resize(active_.size());
    std::size_t sum = 0;
    if (blocks_to_admit()) {
      // f*: the first element of the next block to admit
      const T f = inflight_.empty() ? cursors_[heap_.front()].first() : *inflight_.front().first;
      for (std::size_t i = 0; i < active_.size(); ++i) {
        counts_[i] = static_cast<std::size_t>(
            std::upper_bound(active_[i].pos, active_[i].end, f, less_) - active_[i].pos);
        sum += counts_[i];
      }
    } else {
      for (std::size_t i = 0; i < active_.size(); ++i) {
        counts_[i] = static_cast<std::size_t>(active_[i].end - active_[i].pos);
        sum += counts_[i];
      }
    }
    return sum;
  }

  std::vector<run_info<T>*> runs_;
  block_geometry g_;
  mng::block_manager& bm_;
  Cmp cmp_;
  fast_less<T, Cmp> less_;
  thread_team& team_;
  io::aligned_buffer memory_;
  std::vector<firsts_cursor<T>> cursors_; // per run: its next block not yet requested
  std::vector<std::uint32_t> heap_;       // runs with blocks not yet requested
  std::unique_ptr<T[]> spilled_firsts_;   // per buffer: the first element of a spilled run's block read into it (not a vector: bools are elements too)
  later later_{this};
  std::vector<std::size_t> free_;
  std::deque<pending> inflight_; // in the prediction sequence's order
  std::vector<active> active_;
  std::vector<std::size_t> counts_;
  std::uint64_t remaining_ = 0;
  sort_timings timings_;
  double wait_avg_ = 0, merge_avg_ = 0; // moving averages per batch (seconds)
  bool single_thread_ = false;
};

} // namespace detail

/// How a merge divides its budget (flow/plan/sort_model.hpp computes it).
using merge_plan = plan::merge_shape;

template <class T>
merge_plan plan_merge(std::size_t memory_bytes, const block_geometry& g, std::size_t metadata_bytes) {
  return plan::merge({.element_bytes = sizeof(T)}, g, memory_bytes, metadata_bytes);
}

template <class T, class Cmp, class Combine = no_combine>
class runs_merger : public pull_from_span<runs_merger<T, Cmp, Combine>, T> {
  static_assert(sort_order<Cmp, T>, "Cmp must be an order on T with min_value()/max_value() "
                                    "(see flow/algo/sort_traits.hpp); T trivially copyable");

public:
  /// Merges `runs` within `memory_bytes`: intermediate passes (if the runs are more than
  /// the fan-in) happen here, the final merge as the stream is read. Throws
  /// std::invalid_argument if the budget cannot hold two runs' blocks and the metadata.
  runs_merger(sorted_runs<T> input, std::size_t memory_bytes, Cmp cmp = Cmp(), sort_options opt = {})
      : runs_merger(std::move(input), memory_bytes, std::move(cmp), Combine(), opt) {}
  /// The same with a combiner: equal elements are folded with combine(a, b) in
  /// intermediate passes and in the output.
  runs_merger(sorted_runs<T> input, std::size_t memory_bytes, Cmp cmp, Combine combine, sort_options opt);
  ~runs_merger(); // defined below the class, as close() is (not inline)
  runs_merger(const runs_merger&) = delete;
  runs_merger& operator=(const runs_merger&) = delete;

  /// Stops merging and gives every buffer and disk block back; the stream is empty after.
  /// Generated code calls it where the merge's phase ends, as a reader's close(): a
  /// join or zip that stops at its shorter input leaves the other merge unfinished, and
  /// the plan gives its memory to the phases after.
  void close() noexcept;

  /// Elements in total (of the input runs: before the output's combining).
  std::uint64_t size() const noexcept { return total_; }
  /// Merge passes over the data (passes that read runs from disk): 0 in memory, 1
  /// normally, 2 or more with intermediate merges.
  unsigned merge_passes() const noexcept { return passes_; }
  const merge_plan& plan() const noexcept { return plan_; }
  /// Whether the runs' first elements are on disk (they were, or the budget made it so).
  bool firsts_spilled() const noexcept { return runs_.firsts_spilled(); }
  /// Where the merging time went so far (intermediate passes included).
  sort_timings timings() const noexcept {
    sort_timings t = timings_;
    if (engine_) {
      t.read_wait += engine_->timings().read_wait;
      t.merge += engine_->timings().merge;
    }
    return t;
  }

private:
  friend pull_from_span<runs_merger, T>;
  using pull_from_span<runs_merger, T>::pos_; // the merged elements ready
  using pull_from_span<runs_merger, T>::end_;
  static constexpr bool combining = combining_v<Combine>;
  std::size_t fold(T* data, std::size_t n)
    requires combining;

  void refill();
  /// Writes the sorted sequences held in memory as runs on disk (and frees them).
  void write_memory_sequences(mng::allocation_strategy& strategy, std::size_t& counter) {
    for (const auto& q : runs_.memory_sequences()) {
      detail::run_writer<T> writer(q.size(), runs_.geometry(), 2, *runs_.block_manager(), strategy, counter++);
      writer.push(q);
      runs_.mutable_runs().push_back(writer.finish());
    }
    runs_.clear_memory();
  }
  /// The merge is over (done, or closed): its timings kept, its engine's buffers and the
  /// runs' blocks freed.
  void end_merge() noexcept {
    if (engine_) {
      timings_.read_wait += engine_->timings().read_wait;
      timings_.merge += engine_->timings().merge;
      engine_.reset();
    }
    runs_.release();
  }

  // The next merged elements into o (up to cap); 0 at the end, when the merge's buffers
  // (but out_) are freed.
  std::size_t next_merged(T* o, std::size_t cap);

  void refill_combined()
    requires combining;

  void refill_plain();

  std::size_t next_from_memory(T* o, std::size_t cap);

  sorted_runs<T> runs_;
  Cmp cmp_;
  [[no_unique_address]] Combine combine_;
  // combining: the last key of the previous batch
  [[no_unique_address]] std::conditional_t<combining, detail::carry<T>, no_combine> carry_;
  std::size_t memory_;
  std::vector<segment<T>> memory_segments_; // sorted sequences held in memory
  bool memory_only_ = false;                // no disk runs at all
  merge_plan plan_{};
  std::unique_ptr<thread_team> own_team_;
  thread_team* team_ = nullptr;
  std::vector<unsigned> levels_;
  unsigned passes_ = 0;
  io::aligned_buffer out_;
  std::unique_ptr<detail::merge_engine<T, Cmp>> engine_;
  std::uint64_t total_ = 0;
  sort_timings timings_;
};

// Below: the members that run once per run, block or refill, defined outside the class
// so that they are not inline. A program built in parts (flowc build -j, docs/install.md)
// then compiles them only in the part that instantiates the class (`template class`);
// the others see `extern template class` and call them.
template <class T, class Cmp, class Combine> runs_merger<T, Cmp, Combine>::~runs_merger() = default;

template <class T, class Cmp, class Combine> void runs_merger<T, Cmp, Combine>::close() noexcept {
  end_merge();
  out_.reset();
  memory_segments_.clear();
  pos_ = end_ = nullptr;
}

template <class T, class Cmp, class Combine>
runs_merger<T, Cmp, Combine>::runs_merger(sorted_runs<T> input, std::size_t memory_bytes, Cmp cmp, Combine combine, sort_options opt)
    : runs_(std::move(input)), cmp_(std::move(cmp)), combine_(std::move(combine)), memory_(memory_bytes) {
  mng::allocation_strategy strategy = mng::allocation_strategy::random_cycling(opt.seed + 7);
  std::size_t counter = 0;
  // A sort that got more data than its plan counted may have held all of it in its run
  // formation's memory, more than its merge was given: it is written out and merged
  // from disk, so that this phase keeps its budget.
  if (runs_.in_memory() && runs_.memory_bytes() > memory_bytes) write_memory_sequences(strategy, counter);
  if (runs_.in_memory()) {
    auto seqs = runs_.memory_sequences();
    total_ = runs_.size();
    if (seqs.size() == 1) { // stream straight from the sorted buffer
      if constexpr (combining) { // folded in place (a no-op for a combining creator's run)
        const std::span<T> q = runs_.mutable_memory_sequence(0);
        runs_.shrink_memory_sequence(0, fold(q.data(), q.size()));
        seqs = runs_.memory_sequences();
      }
      pos_ = seqs[0].data();
      end_ = seqs[0].data() + seqs[0].size();
      return;
    }
    if (seqs.empty()) return;
    // several sorted sequences in memory: merged batch by batch into an output buffer
    if (!opt.team) {
      own_team_ = std::make_unique<thread_team>(opt.thread_count());
      team_ = own_team_.get();
    } else {
      team_ = opt.team;
    }
    for (const auto& q : seqs) memory_segments_.push_back({q.data(), q.data() + q.size()});
    memory_only_ = true;
    plan_.output_elements = std::max<std::size_t>(1, std::min<std::size_t>(total_, memory_bytes / 16 / sizeof(T)));
    out_ = io::aligned_buffer((plan_.output_elements + (combining ? 1 : 0)) * sizeof(T));
    refill();
    return;
  }
  if (!opt.team) {
    own_team_ = std::make_unique<thread_team>(opt.thread_count());
    team_ = own_team_.get();
  } else {
    team_ = opt.team;
  }
  total_ = runs_.size();
  mng::block_manager& bm = *runs_.block_manager();
  const block_geometry g = runs_.geometry();
  auto metadata = [&] {
    // Metadata doubles while a merged run's metadata is built beside its inputs'; where
    // firsts were spilled, a merged run's are written through a page (and each run merged
    // reads its own through one: see `buffer` below).
    const std::size_t pages = runs_.firsts_spilled() ? detail::firsts_page_bytes : 0;
    return 2 * runs_.metadata_bytes() + (runs_.run_count() + 2) * sizeof(run_info<T>) + pages;
  };
  std::size_t meta = metadata();
  // What a block buffer costs: with spilled firsts, a run merged through it also reads its
  // firsts through a page and keeps two of them (its cursor's and its read block's).
  const auto buffer_geometry = [&] {
    return runs_.firsts_spilled() ? plan::spilled_firsts_buffer({.element_bytes = sizeof(T)}, g) : g;
  };
  // A sort that got far more data than its plan counted may have more first elements
  // than its merge can hold beside two runs' buffers: they go to disk (those of every
  // run: some may be already), and the merge reads them back a page at a time, so that
  // it finishes within its budget. (Checked again after the last run is written out from
  // memory: that adds a run and its firsts.)
  const auto spill_firsts_if_short = [&] {
    const merge_plan p = plan_merge<T>(memory_bytes, buffer_geometry(), meta);
    const std::size_t n = runs_.run_count() + runs_.memory_sequences().size();
    bool in_memory = false;
    for (const auto& r : runs_.runs()) in_memory = in_memory || r.firsts.size() > 0;
    if (in_memory && ((n > 1 && p.fan_in < 2) || (n > p.fan_in && p.intermediate_fan_in < 2))) {
      runs_.spill_firsts(strategy, counter);
      meta = metadata();
    }
  };
  spill_firsts_if_short();
  block_geometry buffer = buffer_geometry();
  if (const std::size_t held = runs_.memory_bytes(); held > 0) {
    // The last run was kept in memory: merge it from there if the rest of the budget
    // still takes every disk run in one pass, else write it out as a run first.
    const merge_plan p = plan_merge<T>(memory_bytes > held ? memory_bytes - held : 0, buffer, meta);
    if (p.fan_in >= runs_.run_count()) {
      plan_ = p;
      for (const auto& q : runs_.memory_sequences()) memory_segments_.push_back({q.data(), q.data() + q.size()});
    } else {
      write_memory_sequences(strategy, counter);
      meta = metadata();
      spill_firsts_if_short();
      buffer = buffer_geometry();
    }
  }
  if (memory_segments_.empty()) plan_ = plan_merge<T>(memory_bytes, buffer, meta);
  if (plan_.fan_in < 2 && runs_.run_count() > 1) {
    throw std::invalid_argument(
        "flow: merging " + std::to_string(runs_.run_count()) + " sorted runs of " +
        std::to_string(g.bytes) + "-byte blocks needs a memory budget of at least " +
        std::to_string(meta + 4 * g.bytes + plan_.output_elements * sizeof(T) + 32768) +
        " bytes; got " + std::to_string(memory_bytes) + ". Give the sort more memory.");
  }
  auto& runs = runs_.mutable_runs();
  levels_.assign(runs.size(), 0);
  const std::size_t fan_in = std::max<std::size_t>(plan_.fan_in, 1);
  const auto t_inter = std::chrono::steady_clock::now();
  // Progress of the intermediate passes (flow/progress.hpp): the elements they will
  // merge, planned again after each pass from the runs' real sizes (a combining pass
  // writes shorter runs than it reads).
  std::uint64_t merged_before = 0;
  const auto intermediate_total = [&] {
    std::vector<std::uint64_t> sizes;
    for (const auto& r : runs) sizes.push_back(r.size);
    return plan::intermediate_elements(sizes, fan_in, plan_.intermediate_fan_in, merged_before);
  };
  while (runs.size() > fan_in) {
    if (plan_.intermediate_fan_in < 2) {
      throw std::invalid_argument("flow: the memory budget is too small for a second merge pass: " +
                                  std::to_string(runs.size()) + " runs, " + std::to_string(plan_.buffers) +
                                  " block buffers of " + std::to_string(g.bytes) + " bytes in " +
                                  std::to_string(memory_bytes) + " bytes (final fan-in " +
                                  std::to_string(plan_.fan_in) + ")");
    }
    const std::size_t g_in = std::min(plan_.intermediate_fan_in, runs.size() - fan_in + 1);
    std::vector<std::uint64_t> sizes;
    for (const auto& r : runs) sizes.push_back(r.size);
    const std::vector<std::size_t> order = plan::intermediate_pick(sizes, g_in);
    std::vector<run_info<T>*> pick;
    unsigned level = 0;
    for (std::size_t i : order) {
      pick.push_back(&runs[i]);
      level = std::max(level, levels_[i]);
    }
    run_info<T> merged;
    {
      std::uint64_t elements = 0;
      for (const auto* r : pick) elements += r->size;
      const std::uint64_t planned = intermediate_total();
      progress::intermediate_merge(merged_before, planned);
      io::aligned_buffer out((plan_.output_elements + (combining ? 1 : 0)) * sizeof(T));
      T* o = reinterpret_cast<T*>(out.data());
      const std::size_t write_buffers = plan_.intermediate_write_buffers;
      bool spilled = false; // then the merged run's firsts go to disk too
      for (const auto* r : pick) spilled = spilled || r->firsts.spilled();
      detail::run_writer<T> writer(elements, g, write_buffers, bm, strategy, counter++, spilled);
      detail::merge_engine<T, Cmp> engine(pick, g, plan_.buffers - write_buffers, bm, cmp_, *team_);
      if constexpr (combining) { // the merged run holds each key once
        detail::carry<T> c;
        auto next = [&](T* to, std::size_t cap) { return engine.next(to, cap); };
        const equal_in_order<T, Cmp> same{cmp_};
        for (;;) {
          const std::size_t n = detail::next_folded(o, plan_.output_elements, c, same, combine_, next);
          if (n == 0) break;
          writer.push(std::span<const T>(o, n));
          progress::intermediate_merge(merged_before + elements - engine.remaining(), planned);
        }
      } else {
        for (;;) {
          const std::size_t n = engine.next(o, plan_.output_elements);
          if (n == 0) break;
          writer.push(std::span<const T>(o, n));
          progress::intermediate_merge(merged_before + elements - engine.remaining(), planned);
        }
      }
      merged = writer.finish();
      merged_before += elements;
      if (runs.size() - order.size() + 1 <= fan_in) progress::intermediate_merge(merged_before, merged_before);
      timings_.read_wait += engine.timings().read_wait;
      timings_.merge += engine.timings().merge;
    }
    for (std::size_t j = order.size(); j-- > 0;) {
      runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(order[j]));
      levels_.erase(levels_.begin() + static_cast<std::ptrdiff_t>(order[j]));
    }
    runs.push_back(std::move(merged));
    levels_.push_back(level + 1);
  }
  timings_.intermediate = detail::seconds_since(t_inter);
  passes_ = 1;
  for (unsigned l : levels_) passes_ = std::max(passes_, l + 1);
  std::vector<run_info<T>*> all;
  for (auto& r : runs) all.push_back(&r);
  out_ = io::aligned_buffer((plan_.output_elements + (combining ? 1 : 0)) * sizeof(T));
  engine_ = std::make_unique<detail::merge_engine<T, Cmp>>(
      all, g, plan_.buffers, bm, cmp_, *team_, memory_segments_);
  refill();
}

template <class T, class Cmp, class Combine>
void runs_merger<T, Cmp, Combine>::refill() {
  if constexpr (combining) {
    refill_combined();
  } else {
    refill_plain();
  }
}

template <class T, class Cmp, class Combine>
std::size_t runs_merger<T, Cmp, Combine>::next_merged(T* o, std::size_t cap) {
  if (memory_only_) return next_from_memory(o, cap);
  if (!engine_) return 0;
  const std::size_t n = engine_->next(o, cap);
  if (n == 0) end_merge();
  return n;
}

template <class T, class Cmp, class Combine>
void runs_merger<T, Cmp, Combine>::refill_combined()
  requires combining
{
  pos_ = end_ = nullptr;
  if (!out_.data()) return;
  T* o = reinterpret_cast<T*>(out_.data());
  const std::size_t n = detail::next_folded(o, plan_.output_elements, carry_, equal_in_order<T, Cmp>{cmp_}, combine_,
                                            [this](T* to, std::size_t cap) { return next_merged(to, cap); });
  if (n == 0) {
    out_.reset();
    return;
  }
  pos_ = o;
  end_ = o + n;
}

template <class T, class Cmp, class Combine>
void runs_merger<T, Cmp, Combine>::refill_plain() {
  pos_ = end_ = nullptr;
  if (memory_only_) {
    T* o = reinterpret_cast<T*>(out_.data());
    const std::size_t n = next_from_memory(o, plan_.output_elements);
    if (n == 0) {
      out_.reset();
      return;
    }
    pos_ = o;
    end_ = o + n;
    return;
  }
  if (!engine_) return;
  T* o = reinterpret_cast<T*>(out_.data());
  const std::size_t n = engine_->next(o, plan_.output_elements);
  if (n == 0) {
    end_merge();
    out_.reset();
    return;
  }
  pos_ = o;
  end_ = o + n;
}

template <class T, class Cmp, class Combine>
std::size_t runs_merger<T, Cmp, Combine>::next_from_memory(T* o, std::size_t cap) {
  std::size_t left = 0;
  for (const auto& q : memory_segments_) left += q.size();
  if (left == 0) {
    memory_segments_.clear();
    memory_only_ = false;
    runs_.release();
    return 0;
  }
  const std::size_t n = std::min(left, cap);
  std::vector<std::size_t> cut(memory_segments_.size());
  multiway_split<T, Cmp>(memory_segments_, n, cmp_, cut.data());
  std::vector<segment<T>> part(memory_segments_.size());
  for (std::size_t i = 0; i < part.size(); ++i) {
    part[i] = {memory_segments_[i].begin, memory_segments_[i].begin + cut[i]};
    memory_segments_[i].begin += cut[i];
  }
  const auto t = std::chrono::steady_clock::now();
  parallel_merge<T, Cmp>(part, o, cmp_, *team_);
  timings_.merge += detail::seconds_since(t);
  return n;
}

template <class T, class Cmp, class Combine>
std::size_t runs_merger<T, Cmp, Combine>::fold(T* data, std::size_t n)
  requires combining
{
  return detail::combine_adjacent(data, n, equal_in_order<T, Cmp>{cmp_}, combine_);
}

} // namespace flow::algo
