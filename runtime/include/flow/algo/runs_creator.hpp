#pragma once
// Run formation: elements are pushed into a run buffer; a full buffer is handed to a
// background thread that sorts it on every thread of a team (run_sort.hpp) and writes it
// to disk straight from memory, while the caller fills the next buffer. So reading the
// input, sorting run i and writing run i-1 overlap.
//
//   flow::algo::runs_creator<Edge, edge_order> rc(256 << 20);
//   for (...) rc.push(e);
//   flow::algo::sorted_runs<Edge> runs = rc.result();   // then a runs_merger
//
// Memory (all of it within the byte budget):
//  - elements sorted directly (radix or comparison): three run slots of R elements, one
//    being filled, one being sorted and one the sort's scratch, which then holds the
//    sorted run while it is written from there;
//  - elements sorted indirectly (keyed, larger than 32 bytes): two run slots (one being
//    filled, one being sorted), the (key, index) pair arrays (2 * 16 bytes per element)
//    and a ring of write blocks (half a run plus 4 blocks) the sorted run is gathered
//    into, so filling, sorting and writing all overlap;
//  - a reserve of budget/16 for the runs' metadata (one element per block) and pending
//    writes.
// In memory: with three slots the first full run is held back until the second is full,
// so inputs of up to 2R elements (R with two slots) are sorted in memory, nothing is
// written, and the merger merges the (at most two) sorted runs in memory.
//
// Combining (flow/algo/combine.hpp): runs_creator<T, Cmp, Combine> with a combiner folds
// the equal elements of each sorted run into one (combine(a, b)) before the run is
// written or kept in memory, so a run holds each key once and is as short as its number
// of keys. Constructed as runs_creator(memory_bytes, Cmp(), combine, opt). The default
// Combine, no_combine, leaves the sort as it is.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/algo/combine.hpp"
#include "flow/algo/parallel.hpp"
#include "flow/algo/run_sort.hpp"
#include "flow/algo/runs.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/algo/sort_traits.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/request.hpp"
#include "flow/mng/allocation.hpp"

namespace flow::algo {

using plan::run_write_overhead;
/// How run formation divides a budget (flow/plan/sort_model.hpp computes it).
using run_formation_plan = plan::run_formation_shape;

/// What the shared sort model needs to know of T, Cmp and the options.
template <class T, class Cmp> plan::sort_setup sort_setup_of(const sort_options& opt) {
  static_assert(sizeof(key_index) == plan::key_index_bytes);
  return {.element_bytes = sizeof(T), .keyed = run_sort_traits<T, Cmp>::keyed, .block_bytes = opt.block_bytes};
}

/// Run formation's division of `memory_bytes`; throws std::invalid_argument if it holds
/// no run of one block.
template <class T, class Cmp>
run_formation_plan plan_run_formation(std::size_t memory_bytes, const sort_options& opt) {
  const run_formation_plan p = plan::run_formation(sort_setup_of<T, Cmp>(opt), memory_bytes);
  if (p.run_elements == 0) {
    throw std::invalid_argument(
        "flow: sorting needs a memory budget of at least " +
        std::to_string(p.least_bytes) +
        " bytes for run formation with blocks of " + std::to_string(p.geometry.bytes) +
        " bytes; got " + std::to_string(memory_bytes) + ". Give the sort more memory or smaller blocks.");
  }
  return p;
}

template <class T, class Cmp, class Combine = no_combine> class runs_creator {
  static_assert(sort_order<Cmp, T>, "Cmp must be an order on T with min_value()/max_value() "
                                    "(see flow/algo/sort_traits.hpp); T trivially copyable");

public:
  using value_type = T;

  /// Run formation within `memory_bytes` of buffers. Throws std::invalid_argument if the
  /// budget cannot hold a run of one block beside the metadata reserve, or a merge of two
  /// finished runs (plan::run_formation_shape::least_bytes).
  explicit runs_creator(std::size_t memory_bytes, Cmp cmp = Cmp(), sort_options opt = {})
      : runs_creator(memory_bytes, std::move(cmp), Combine(), opt) {}
  /// The same with a combiner: equal elements of a run are folded with combine(a, b).
  runs_creator(std::size_t memory_bytes, Cmp cmp, Combine combine, sort_options opt);

  ~runs_creator();
  runs_creator(const runs_creator&) = delete;
  runs_creator& operator=(const runs_creator&) = delete;

  /// Adds one element (inlined: a store and a compare; a full run goes to the sorter).
  void push(const T& v) {
    if (pos_ == end_) [[unlikely]] next_slot();
    *pos_++ = v;
  }
  /// Adds many elements.
  void push(std::span<const T> items) {
    while (!items.empty()) {
      if (pos_ == end_) next_slot();
      const std::size_t n = std::min(items.size(), static_cast<std::size_t>(end_ - pos_));
      std::memcpy(static_cast<void*>(pos_), items.data(), n * sizeof(T));
      pos_ += n;
      items = items.subspan(n);
    }
  }
  /// Adds every element of a stream node (by batches where the node has them).
  template <class Node> void push_all(Node& in) {
    if constexpr (requires { in.batch(); in.advance(std::size_t{}); }) {
      while (!in.empty()) {
        auto b = in.batch();
        push(std::span<const T>(b.data(), b.size()));
        in.advance(b.size());
      }
    } else {
      for (; !in.empty(); ++in) push(*in);
    }
  }

  /// Elements pushed so far.
  std::uint64_t size() const noexcept {
    return pushed_before_ + (slot_ >= 0 ? static_cast<std::uint64_t>(pos_ - slot_data(slot_)) : 0);
  }
  const run_formation_plan& plan() const noexcept { return plan_; }
  /// Where the time went so far (read after result() for the whole run formation).
  const sort_timings& timings() const noexcept { return timings_; }

  /// Ends the input: sorts the last run (in memory if it is the only one), waits for all
  /// writes and returns the runs. Frees every buffer of the creator except an in-memory
  /// result's. Call once.
  sorted_runs<T> result();

private:
  struct writing {
    int slot;
    std::vector<io::request_ptr> requests;
  };

  using traits = run_sort_traits<T, Cmp>;
  T* slot_data(int i) const { return reinterpret_cast<T*>(slots_[static_cast<std::size_t>(i)].data()); }

  void next_slot();

  enum class task { sort_and_write, sort_only };

  void submit(int slot, std::size_t n);

  void enqueue(int slot, std::size_t n, task what);

  struct sorted_slot {
    int slot = -1;
    T* data = nullptr;
    std::size_t size = 0; // elements (fewer than pushed after combining)
  };

  static constexpr bool combining = combining_v<Combine>;
  // Folds the equal elements of a sorted run; returns its new length.
  std::size_t fold(T* data, std::size_t n);

  // On the worker thread.
  void sort_and_write(int slot, std::size_t n);

  // Sorts slot (n elements) with a scratch slot; returns where the result is (the other
  // slot is free again).
  sorted_slot sort_direct(int slot, std::size_t n);

  // Writes the sorted run in slot `keep` straight from it; the slot is free again once
  // the writes are done.
  void write_sorted(int keep, T* res, std::size_t n);

  // Indirect sorting on the worker thread: sort (key, index) pairs, then gather the
  // elements block by block into the write ring; the run's slot is free as soon as the
  // gather is done, while the last blocks are still being written.
  // Only for keyed orders (an explicit instantiation of the class must not compile it for
  // an order without a key, such as a str key's or a C++ comparator's on large elements).
  void sort_and_gather(int slot, std::size_t n)
    requires traits::indirect;

  // Combining with indirect sorting: each group of equal elements (adjacent in `order`) is
  // folded into its first element, in place in the run's slot, and the order keeps that
  // one; returns the new length of the order. (Every index is in one group only.)
  std::size_t fold_indirect(T* data, key_index* order, std::size_t n)
    requires combining;

  // Before a run of `blocks` blocks is written: claims its metadata (its first elements
  // and write requests) within the reserve, or throws std::length_error. The check is
  // made when a run is written, not after: input that ends needs no room for more runs.
  void claim_metadata(std::size_t blocks);
  // With the mutex held: the finished run joins the result; its claim ends.
  void add_run(run_info<T> run);
  // Whether the next runs' descriptions might not fit the metadata reserve (with every
  // finished run's first elements on disk): then the runs are merged into one first.
  bool run_list_nearly_full();
  // Merges the finished runs into one with run formation's memory, while no run is in
  // flight (a sort that got far more data than its plan counted, at a budget whose
  // reserve describes few runs): a sort of any size finishes within its budget.
  void merge_finished_runs();
  // Run formation's buffers: made at the start, freed at the end (result) and freed and
  // made again around merge_finished_runs.
  void allocate_buffers();
  void free_buffers();
  // Waits until no run is in flight: every submitted sort done, every write finished.
  void wait_runs_in_flight();
  // A run handed to the worker (sorted and written, or only written): counted until it
  // joins the result (add_run).
  void count_submitted();

  // A slot from the free list, else the oldest slot being written once its writes are
  // done, else wait until a sort releases one. The filler waits until the worker has
  // the scratch slot for every submitted run (else both could wait for each other).
  int acquire_slot(bool filler);
  // Sorts slot s (n elements) with a free slot as scratch and keeps the result in the
  // in-memory result; the other slot is free again.
  void keep_in_memory(int s, std::size_t n);

  int take_free();
  void release_slot(int s);
  // Waits for the oldest run write (with `lock` held on entry, released on return) and
  // returns its slot; a failed write frees the slot and throws.
  int finish_oldest_write(std::unique_lock<std::mutex>& lock);
  void wait_writes();
  void wait_writes_noexcept() noexcept;
  static void wait_all(std::span<const io::request_ptr> r) { io::wait_all(r); }

  Cmp cmp_;
  [[no_unique_address]] Combine combine_;
  sort_options opt_;
  mng::block_manager& bm_;
  std::size_t memory_bytes_;
  run_formation_plan plan_;
  std::size_t max_runs_; // the most runs the sort's merge takes (plan::runs_a_merge_takes)
  mng::allocation_strategy strategy_;
  std::size_t run_counter_ = 0;
  std::unique_ptr<thread_team> own_team_;
  thread_team* team_ = nullptr;
  std::vector<io::aligned_buffer> slots_;
  io::aligned_buffer extra_;
  io::aligned_buffer ring_;                  // indirect sorting's write buffers
  std::vector<io::request_ptr> ring_requests_;
  std::size_t ring_next_ = 0;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int> free_;
  std::deque<writing> writing_;
  std::size_t unsorted_ = 0; // submitted runs whose sort has no scratch slot yet
  std::size_t claimed_ = 0;  // metadata bytes claimed by runs being written
  std::size_t in_flight_ = 0; // runs submitted that have not joined the result yet

  int slot_ = -1; // the slot being filled
  int held_ = -1; // the first run: sorted (or being sorted), its write held back
  sorted_slot held_sorted_; // where the worker put it (read after the worker finished it)
  T* pos_ = nullptr;
  T* end_ = nullptr;
  std::uint64_t pushed_before_ = 0;
  std::size_t submitted_ = 0;
  bool finished_ = false;
  sorted_runs<T> result_;
  sort_timings timings_;
  std::unique_ptr<background_worker> worker_; // last: destroyed first
};

// Below: the members that run once per run, block or refill, defined outside the class
// so that they are not inline. A program built in parts (flowc build -j, docs/install.md)
// then compiles them only in the part that instantiates the class (`template class`);
// the others see `extern template class` and call them.
template <class T, class Cmp, class Combine>
runs_creator<T, Cmp, Combine>::runs_creator(std::size_t memory_bytes, Cmp cmp, Combine combine, sort_options opt)
    : cmp_(std::move(cmp)), combine_(std::move(combine)), opt_(opt), bm_(opt.bm()), memory_bytes_(memory_bytes),
      plan_(plan_run_formation<T, Cmp>(memory_bytes, opt)),
      max_runs_(std::max<std::uint64_t>(2, plan::runs_a_merge_takes(sort_setup_of<T, Cmp>(opt), plan_.geometry,
                                                                     opt.merge_bytes ? opt.merge_bytes : memory_bytes))),
      strategy_(mng::allocation_strategy::random_cycling(opt.seed)) {
  if (!opt_.team) {
    own_team_ = std::make_unique<thread_team>(opt_.thread_count());
    team_ = own_team_.get();
  } else {
    team_ = opt_.team;
  }
  allocate_buffers();
  result_.set_block_manager(&bm_);
  result_.set_geometry(plan_.geometry);
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::allocate_buffers() {
  slots_.clear();
  free_.clear();
  for (std::size_t i = 0; i < plan_.slots; ++i) {
    slots_.emplace_back(plan_.slot_bytes);
    free_.push_back(static_cast<int>(i));
  }
  if (plan_.extra_bytes) extra_ = io::aligned_buffer(plan_.extra_bytes);
  if (plan_.ring_blocks) {
    ring_ = io::aligned_buffer(plan_.ring_blocks * plan_.geometry.bytes);
    ring_requests_.assign(plan_.ring_blocks, nullptr);
    ring_next_ = 0;
  }
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::free_buffers() {
  for (auto& s : slots_) s.reset();
  extra_.reset();
  ring_.reset();
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::wait_runs_in_flight() {
  if (worker_) worker_->wait();
  wait_writes();
  for (auto& r : ring_requests_) {
    if (r) r->wait();
    r = nullptr;
  }
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::count_submitted() {
  ++submitted_;
  std::lock_guard<std::mutex> lock(mutex_);
  ++in_flight_;
}

template <class T, class Cmp, class Combine>
bool runs_creator<T, Cmp, Combine>::run_list_nearly_full() {
  std::lock_guard<std::mutex> lock(mutex_);
  // The reserve holds the run list and the metadata of the run being written (its
  // claim, claim_metadata's arithmetic); the list may grow by the runs in flight and the
  // next one before the next check. Merging fewer than three runs would not shorten it.
  const std::size_t finished = result_.run_count();
  const std::size_t coming = finished + in_flight_ + 1;
  if (finished >= 2 && coming > max_runs_) return true; // more than the sort's merge takes
  std::size_t capacity = result_.runs().capacity();
  while (capacity < coming) capacity = sorted_runs<T>::grown_run_capacity(capacity);
  const std::size_t blocks = (plan_.run_elements + plan_.geometry.elements - 1) / plan_.geometry.elements;
  const std::size_t claim = blocks * plan::run_block_metadata(sizeof(T));
  return finished >= 3 && capacity * sizeof(run_info<T>) + claim + 4096 > plan_.metadata_reserve;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::merge_finished_runs() {
  wait_runs_in_flight(); // so every slot is free
  const auto t = std::chrono::steady_clock::now();
  // The merge gets run formation's memory: its buffers are freed first and made again
  // after (the runs' descriptions stay where the reserve counts them).
  free_buffers();
  // The smaller half of the runs (and one more) are merged into one: the runs merged
  // before are long and are merged again only when they are among the shorter half, so
  // the data is re-read O(log) times, not once per merge.
  sorted_runs<T> finished;
  finished.set_block_manager(&bm_);
  finished.set_geometry(plan_.geometry);
  {
    auto& runs = result_.mutable_runs();
    // At least as many as leave room for the next run within what the sort's merge takes;
    // at most as many as the budget merges at once, and at least two (every run formation
    // budget holds a merge of two: plan::run_formation).
    std::size_t take = std::max(runs.size() / 2 + 1, runs.size() + 2 > max_runs_ ? runs.size() + 2 - max_runs_ : 0);
    take = std::min(take, runs.size());
    const plan::sort_setup setup = sort_setup_of<T, Cmp>(opt_);
    while (take > 2 && plan::metadata_merge_memory(setup, plan_.geometry, take) > memory_bytes_) --take;
    std::vector<std::uint64_t> sizes;
    for (const auto& r : runs) sizes.push_back(r.size);
    const std::vector<std::size_t> order = plan::intermediate_pick(sizes, take); // the shortest, by position
    std::vector<run_info<T>> kept;
    std::size_t next = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (next < order.size() && order[next] == i) {
        finished.add_run(std::move(runs[i]));
        ++next;
      } else {
        kept.push_back(std::move(runs[i]));
      }
    }
    runs.clear();
    runs.shrink_to_fit(); // the list takes only what the runs kept need
    for (auto& r : kept) result_.add_run(std::move(r));
  }
  const block_geometry g = plan_.geometry;
  // One write buffer (the merge waits for each block's write) and the page its firsts may
  // be written through: the merge's own buffers get all the rest, for a budget that is
  // run formation's least (plan::metadata_merge_memory counts the same).
  const std::size_t write_buffers = 1;
  {
    sort_options merge_opt = opt_;
    merge_opt.team = team_;
    merge_opt.keep_last_run = false;
    const std::size_t writer_bytes = write_buffers * g.bytes + detail::firsts_page_bytes + sizeof(run_info<T>);
    runs_merger<T, Cmp, Combine> merger(std::move(finished), memory_bytes_ > writer_bytes ? memory_bytes_ - writer_bytes : 0,
                                        cmp_, combine_, merge_opt);
    // The merged run's first elements go where the inputs' are: on disk if they were, or
    // if the merger had to put them there.
    detail::run_writer<T> writer(merger.size(), g, write_buffers, bm_, strategy_, run_counter_++,
                                 merger.firsts_spilled());
    while (!merger.empty()) {
      const auto b = merger.batch();
      writer.push(std::span<const T>(b.data(), b.size()));
      merger.advance(b.size());
    }
    const sort_timings mt = merger.timings();
    timings_.read_wait += mt.read_wait;
    timings_.merge += mt.merge;
    run_info<T> merged = writer.finish();
    std::lock_guard<std::mutex> lock(mutex_);
    result_.add_run(std::move(merged));
  }
  timings_.intermediate += detail::seconds_since(t);
  allocate_buffers();
}

template <class T, class Cmp, class Combine>
runs_creator<T, Cmp, Combine>::~runs_creator() {
  worker_.reset(); // finishes queued sorts (their buffers are ours)
  wait_writes_noexcept();
  for (auto& r : ring_requests_) io::wait_quietly(r);
  result_.release();
}

template <class T, class Cmp, class Combine>
sorted_runs<T> runs_creator<T, Cmp, Combine>::result() {
  if (finished_) throw std::logic_error("flow: runs_creator::result called twice");
  finished_ = true;
  result_.set_block_manager(&bm_);
  result_.set_geometry(plan_.geometry);
  const std::size_t n = slot_ >= 0 ? static_cast<std::size_t>(pos_ - slot_data(slot_)) : 0;
  if (submitted_ == 0) {
    // in memory: keep the (already sorted) held run, sort the last one, free the rest
    if (held_ >= 0) {
      worker_->wait();
      result_.add_memory(std::move(slots_[static_cast<std::size_t>(held_sorted_.slot)]),
                         held_sorted_.data, held_sorted_.size);
      held_ = -1;
    }
    if (n > 0) keep_in_memory(slot_, n);
  } else {
    const bool keep = opt_.keep_last_run && n > 0;
    if (n > 0 && !keep) submit(slot_, n);
    else if (n == 0) release_slot(slot_);
    wait_runs_in_flight();
    if (keep) keep_in_memory(slot_, n); // every other slot is free now
  }
  slot_ = -1;
  pos_ = end_ = nullptr;
  free_buffers();
  worker_.reset();
  return std::move(result_);
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::next_slot() {
  if (finished_) throw std::logic_error("flow: runs_creator::push after result()");
  if (slot_ >= 0) {
    pushed_before_ += plan_.run_elements;
    if (plan_.slots >= 3 && submitted_ == 0 && held_ < 0) {
      // The first run is sorted but its write held back: if the input ends within the
      // next slot, both runs stay in memory and nothing is written (inputs up to 2R).
      held_ = slot_;
      enqueue(slot_, plan_.run_elements, task::sort_only);
    } else {
      if (held_ >= 0) {
        count_submitted();
        worker_->submit([this] { write_sorted(held_sorted_.slot, held_sorted_.data, held_sorted_.size); });
        held_ = -1;
      }
      submit(slot_, plan_.run_elements);
      while (run_list_nearly_full()) merge_finished_runs();
    }
  }
  const auto t = std::chrono::steady_clock::now();
  slot_ = acquire_slot(true);
  timings_.fill_wait += detail::seconds_since(t);
  pos_ = slot_data(slot_);
  end_ = pos_ + plan_.run_elements;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::submit(int slot, std::size_t n) {
  count_submitted();
  enqueue(slot, n, task::sort_and_write);
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::enqueue(int slot, std::size_t n, task what) {
  if (!worker_) worker_ = std::make_unique<background_worker>();
  worker_->check();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++unsorted_;
  }
  if (what == task::sort_only) {
    worker_->submit([this, slot, n] { held_sorted_ = sort_direct(slot, n); });
  } else {
    worker_->submit([this, slot, n] { sort_and_write(slot, n); });
  }
}

template <class T, class Cmp, class Combine>
std::size_t runs_creator<T, Cmp, Combine>::fold(T* data, std::size_t n) {
  if constexpr (combining) {
    return detail::combine_adjacent(data, n, equal_in_order<T, Cmp>{cmp_}, combine_);
  } else {
    (void)data;
    return n;
  }
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::sort_and_write(int slot, std::size_t n) {
  if constexpr (traits::indirect) {
    sort_and_gather(slot, n);
  } else {
    const sorted_slot r = sort_direct(slot, n);
    write_sorted(r.slot, r.data, r.size);
  }
}

template <class T, class Cmp, class Combine>
auto runs_creator<T, Cmp, Combine>::sort_direct(int slot, std::size_t n) -> sorted_slot {
  int scratch = -1;
  auto t = std::chrono::steady_clock::now();
  try {
    scratch = acquire_slot(false);
  } catch (...) {
    release_slot(slot);
    std::lock_guard<std::mutex> lock(mutex_);
    --unsorted_;
    changed_.notify_all();
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --unsorted_;
    changed_.notify_all();
  }
  T* res;
  timings_.scratch_wait += detail::seconds_since(t);
  t = std::chrono::steady_clock::now();
  try {
    res = sort_run<T, Cmp>(slot_data(slot), slot_data(scratch), n, cmp_, *team_, extra_.data());
    timings_.run_sort += detail::seconds_since(t);
  } catch (...) {
    release_slot(slot);
    release_slot(scratch);
    throw;
  }
  const int keep = res == slot_data(slot) ? slot : scratch;
  release_slot(keep == slot ? scratch : slot);
  std::size_t size = n;
  try {
    size = fold(res, n);
  } catch (...) {
    release_slot(keep);
    throw;
  }
  return {keep, res, size};
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::write_sorted(int keep, T* res, std::size_t n) {
  run_info<T> run;
  std::vector<io::request_ptr> reqs;
  try {
    claim_metadata((n + plan_.geometry.elements - 1) / plan_.geometry.elements);
    reqs = detail::write_run_in_place(res, n, plan_.geometry, bm_, strategy_, run_counter_++, run);
  } catch (...) {
    release_slot(keep);
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  writing_.push_back({keep, std::move(reqs)});
  add_run(std::move(run));
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::sort_and_gather(int slot, std::size_t n)
  requires traits::indirect
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --unsorted_;
    changed_.notify_all();
  }
  const T* data = slot_data(slot);
  const block_geometry& g = plan_.geometry;
  run_info<T> run;
  try {
    auto t = std::chrono::steady_clock::now();
    const key_index* order = sort_keys_indirect<T, Cmp>(data, n, cmp_, *team_, extra_.data());
    if constexpr (combining) n = fold_indirect(slot_data(slot), const_cast<key_index*>(order), n);
    timings_.run_sort += detail::seconds_since(t);
    const std::size_t blocks = (n + g.elements - 1) / g.elements;
    claim_metadata(blocks);
    run.size = n;
    run.blocks = static_cast<std::uint32_t>(blocks);
    run.firsts.reserve(blocks);
    run.extent = bm_.allocate(blocks * g.bytes, strategy_, run_counter_++);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t r = ring_next_;
      ring_next_ = (ring_next_ + 1) % plan_.ring_blocks;
      if (ring_requests_[r]) {
        t = std::chrono::steady_clock::now();
        io::request_ptr q = std::move(ring_requests_[r]);
        ring_requests_[r] = nullptr;
        q->wait();
        timings_.write_wait += detail::seconds_since(t);
      }
      T* out = reinterpret_cast<T*>(ring_.data() + r * g.bytes);
      const std::size_t first = b * g.elements;
      const std::size_t len = std::min(g.elements, n - first);
      t = std::chrono::steady_clock::now();
      const unsigned threads = len >= 4096 ? team_->size() : 1u;
      auto part = [&](unsigned i) {
        const std::size_t lo = len * i / threads, hi = len * (i + 1) / threads;
        gather_elements(out + lo, data, order + first + lo, hi - lo);
      };
      if (threads == 1) part(0); else team_->run(part);
      timings_.run_sort += detail::seconds_since(t);
      if (len < g.elements) std::memset(static_cast<void*>(out + len), 0, (g.elements - len) * sizeof(T));
      run.firsts.push_back(out[0]);
      const mng::block_id id = run.block(b, g.bytes);
      ring_requests_[r] = id.storage->file().awrite(out, id.offset, g.bytes);
    }
  } catch (...) {
    for (auto& q : ring_requests_) { // no write may still use the ring when we unwind
      io::wait_quietly(q);
      q = nullptr;
    }
    run.release(bm_, g.bytes);
    release_slot(slot);
    throw;
  }
  release_slot(slot);
  std::lock_guard<std::mutex> lock(mutex_);
  add_run(std::move(run));
}

template <class T, class Cmp, class Combine>
std::size_t runs_creator<T, Cmp, Combine>::fold_indirect(T* data, key_index* order, std::size_t n)
  requires combining
{
  if (n == 0) return 0;
  const equal_in_order<T, Cmp> same{cmp_};
  std::size_t j = 0;
  for (std::size_t i = 1; i < n; ++i) {
    T& head = data[order[j].index];
    const T& x = data[order[i].index];
    if (same(head, x)) {
      head = combine_(std::as_const(head), x);
    } else {
      order[++j] = order[i];
    }
  }
  return j + 1;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::claim_metadata(std::size_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& runs = result_.mutable_runs();
  // The run list grows (add_run) when this run joins it.
  const std::size_t list_growth =
      runs.size() == runs.capacity() ? (sorted_runs<T>::grown_run_capacity(runs.size()) - runs.size()) * sizeof(run_info<T>)
                                     : 0;
  const std::size_t claim = blocks * plan::run_block_metadata(sizeof(T));
  std::size_t held = result_.metadata_bytes() + claimed_;
  if (held + list_growth + claim + 4096 > plan_.metadata_reserve) {
    // More data than the plan counted: the finished runs' first elements go to disk (4096
    // bytes above are the page they are written through), and the merger reads them
    // back a page at a time. Only the run list and the run being written stay.
    result_.spill_firsts(strategy_, run_counter_);
    held = result_.metadata_bytes() + claimed_;
  }
  if (held + list_growth + claim + 4096 > plan_.metadata_reserve) {
    throw std::length_error(
        "flow: sorting: the runs' metadata outgrows its reserve of " + std::to_string(plan_.metadata_reserve) +
        " bytes (1/16 of the sort's memory and the run being written), with the finished runs' first elements "
        "on disk: " + std::to_string(runs.size()) + " runs' descriptions hold " + std::to_string(held) + " bytes and run " +
        std::to_string(runs.size() + 1) + " needs " + std::to_string(claim + list_growth + 4096) +
        " more. Give the sort more memory (or a ~ count that is not too low).");
  }
  claimed_ += claim;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::add_run(run_info<T> run) {
  claimed_ -= std::min(claimed_, run.block_count() * plan::run_block_metadata(sizeof(T)));
  in_flight_ -= std::min<std::size_t>(in_flight_, 1);
  result_.add_run(std::move(run));
  changed_.notify_all();
}

template <class T, class Cmp, class Combine>
int runs_creator<T, Cmp, Combine>::acquire_slot(bool filler) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (filler && unsorted_ > 0) {
      changed_.wait(lock);
      continue;
    }
    if (!free_.empty()) {
      const int s = free_.back();
      free_.pop_back();
      return s;
    }
    if (!writing_.empty()) return finish_oldest_write(lock);
    changed_.wait(lock);
  }
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::keep_in_memory(int s, std::size_t n) {
  const int scratch = take_free();
  T* res = sort_run<T, Cmp>(slot_data(s), slot_data(scratch), n, cmp_, *team_, extra_.data());
  const int keep = res == slot_data(s) ? s : scratch;
  release_slot(keep == s ? scratch : s);
  n = fold(res, n);
  // The slot is as large as the run formation's share of its phase, which may be far
  // more than the data (its count was an estimate, or unknown): only the data is kept,
  // so that the merge, in a later phase, holds what its plan gave it.
  io::aligned_buffer& kept = slots_[static_cast<std::size_t>(keep)];
  kept.shrink(std::max<std::size_t>(n, 1) * sizeof(T));
  result_.add_memory(std::move(kept), res, n);
}

template <class T, class Cmp, class Combine>
int runs_creator<T, Cmp, Combine>::take_free() {
  std::lock_guard<std::mutex> lock(mutex_);
  const int s = free_.back();
  free_.pop_back();
  return s;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::release_slot(int s) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(s);
  changed_.notify_all();
}

template <class T, class Cmp, class Combine>
int runs_creator<T, Cmp, Combine>::finish_oldest_write(std::unique_lock<std::mutex>& lock) {
  writing w = std::move(writing_.front());
  writing_.pop_front();
  lock.unlock();
  try {
    wait_all(std::span<const io::request_ptr>(w.requests));
  } catch (...) {
    release_slot(w.slot);
    throw;
  }
  return w.slot;
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::wait_writes() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!writing_.empty()) {
    const int s = finish_oldest_write(lock);
    lock.lock();
    free_.push_back(s);
  }
}

template <class T, class Cmp, class Combine>
void runs_creator<T, Cmp, Combine>::wait_writes_noexcept() noexcept {
  for (;;) {
    try {
      wait_writes();
      return;
    } catch (...) { // a failed write: its slot is free again, go on with the others
    }
  }
}

} // namespace flow::algo
