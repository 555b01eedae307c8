#pragma once
// `reduce (keys) with (a, b) => expr`: group by key and fold each group with an
// associative, commutative combine(a, b) -> T that keeps the key. Three ways, which the
// compiler composes:
//
// 1. Input already sorted by the key: fold_groups, the rule (push/finish, like
//    first_of_group in transform.hpp, for generated code that pushes), and
//    reduce_sorted(in, same, combine), a node that pulls through the same rule.
//      flow::stream::fold_groups<T, Same, Combine> g(same, combine);
//      g.push(x, out);  ...  g.finish(out);        // out(const T& group) per group
//      auto r = flow::stream::reduce_sorted(sorted, same, combine);
//    `same(a, b)` is a binary predicate "a and b have the same key" (or a unary key
//    function: same(a) == same(b)).
//
// 2. The combining sort (flow/algo/combine.hpp): runs hold each key once, intermediate
//    merges combine, the merged output has each key exactly once (in Cmp order).
//      flow::stream::reduce_runs<T, Cmp, Combine> rr(memory_bytes, combine, opt);
//      rr.push(x); ...  flow::algo::sorted_runs<T> runs = rr.result();
//      flow::stream::reduce_merge<T, Cmp, Combine> rm(std::move(runs), memory_bytes, combine, opt);
//      for (; !rm.empty(); ++rm) use(*rm);          // also batch() / advance(n)
//    They are runs_creator<T, Cmp, Combine> / runs_merger<T, Cmp, Combine> with Cmp
//    default-constructed. Keys are equal when !cmp(a, b) && !cmp(b, a): Cmp is the order
//    of the keys only (it must not order elements of one key by their payload).
//
// 3. The hash table: hash_reduce_runs<T, Cmp, Hash, Same, Combine>, the same shape as
//    reduce_runs (construct (memory_bytes, combine, opt), push(x), result()), combining
//    in an open-addressing table in one flat buffer. With no more distinct keys than its
//    capacity, result() is the table's contents sorted in memory (no I/O); else each
//    time the table fills it is sorted by Cmp and written as a run, and reduce_merge
//    merges (and combines) the runs. `hash(x)` -> std::uint64_t hashes x's key (it is
//    mixed again, an identity hash is fine); `same(a, b)` must agree with Cmp's equality.
//
// Memory: every buffer is an io::aligned_buffer within memory_bytes (seen by --stats'
// buffer peak); a budget too small throws std::invalid_argument. flow/plan/reduce_model.hpp
// has the planner's estimate of both paths.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flow/algo/combine.hpp"
#include "flow/algo/runs_creator.hpp"
#include "flow/algo/runs_merger.hpp"
#include "flow/io/buffer.hpp"
#include "flow/plan/reduce_model.hpp"
#include "flow/stream/node.hpp"
#include "flow/stream/transform.hpp"

namespace flow::stream {

/// The rule of reduce on input sorted by the key, one element at a time: push(x, out)
/// combines x into the current group if it has x's key, else calls out(group) with the
/// finished group and starts a new one with x; finish(out) flushes the last group (once;
/// nothing on empty input).
template <class T, class Same, class Combine> class fold_groups {
public:
  explicit fold_groups(Same same = Same{}, Combine combine = Combine{})
      : same_(std::move(same)), combine_(std::move(combine)) {}

  template <class Out> void push(const T& x, Out&& out) {
    if (has_) {
      if (equal(group_, x)) {
        group_ = combine_(std::as_const(group_), x);
        return;
      }
      out(std::as_const(group_));
    }
    group_ = x;
    has_ = true;
  }
  template <class Out> void finish(Out&& out) {
    if (!has_) return;
    has_ = false;
    out(std::as_const(group_));
  }
  /// A group is open (finish would emit it).
  bool open() const noexcept { return has_; }

private:
  bool equal(const T& a, const T& b) const { return same_group(same_, a, b); }
  Same same_;
  Combine combine_;
  T group_{};
  bool has_ = false;
};

/// One element per group of adjacent elements with the same key: the group folded with
/// combine (see fold_groups).
template <class In, class Same, class Combine> class reduce_sorted_node {
public:
  using value_type = value_t<In>;

  reduce_sorted_node(In&& in, Same same, Combine combine)
      : in_(std::forward<In>(in)), rule_(std::move(same), std::move(combine)) {
    next();
  }
  bool empty() const noexcept { return !has_; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  reduce_sorted_node& operator++() {
    next();
    return *this;
  }

private:
  void next() {
    has_ = false;
    auto emit = [this](const value_type& g) {
      current_ = g;
      has_ = true;
    };
    while (!has_ && !in_.empty()) {
      rule_.push(*in_, emit);
      ++in_;
    }
    if (!has_) rule_.finish(emit);
  }
  input_storage<In> in_;
  fold_groups<value_type, Same, Combine> rule_;
  value_type current_{};
  bool has_ = false;
};

template <class In, class Same, class Combine>
reduce_sorted_node<In, Same, Combine> reduce_sorted(In&& in, Same same, Combine combine) {
  return reduce_sorted_node<In, Same, Combine>(std::forward<In>(in), std::move(same), std::move(combine));
}

/// Run formation with combining: runs_creator<T, Cmp, Combine> (each run holds each key
/// once). Constructed (memory_bytes, combine, opt); Cmp is default-constructed.
template <class T, class Cmp, class Combine> class reduce_runs : public algo::runs_creator<T, Cmp, Combine> {
public:
  explicit reduce_runs(std::size_t memory_bytes, Combine combine = Combine(), algo::sort_options opt = {})
      : algo::runs_creator<T, Cmp, Combine>(memory_bytes, Cmp(), std::move(combine), opt) {}
};

/// Merging with combining: runs_merger<T, Cmp, Combine>; the output holds each key
/// exactly once, in Cmp order. Constructed (runs, memory_bytes, combine, opt).
template <class T, class Cmp, class Combine> class reduce_merge : public algo::runs_merger<T, Cmp, Combine> {
public:
  reduce_merge(algo::sorted_runs<T>&& runs, std::size_t memory_bytes, Combine combine = Combine(),
               algo::sort_options opt = {})
      : algo::runs_merger<T, Cmp, Combine>(std::move(runs), memory_bytes, Cmp(), std::move(combine), opt) {}
};

/// The hash path of reduce (see the top of this file). Memory: one buffer of
/// plan().slots elements and as many occupancy bytes, plus the reserve for the metadata
/// of the runs it writes (flow::plan::hash_reduce). A spill sorts the table in place
/// (std::sort, one thread) and writes it from there, waiting for the writes.
template <class T, class Cmp, class Hash, class Same, class Combine> class hash_reduce_runs {
  static_assert(algo::sort_order<Cmp, T>, "Cmp must be an order on T with min_value()/max_value() "
                                          "(see flow/algo/sort_traits.hpp); T trivially copyable");

public:
  using value_type = T;

  explicit hash_reduce_runs(std::size_t memory_bytes, Combine combine = Combine(), algo::sort_options opt = {})
      : hash_reduce_runs(memory_bytes, std::move(combine), opt, Hash(), Same(), Cmp()) {}
  /// `expected_keys`: the distinct keys the caller expects (0: not known). The table
  /// starts with room for them (and grows up to the budget when there are more), so a
  /// reduce with few keys works in a table that stays in the processor's caches rather
  /// than one spread over the whole budget.
  hash_reduce_runs(std::size_t memory_bytes, Combine combine, algo::sort_options opt, Hash hash, Same same, Cmp cmp,
                   std::uint64_t expected_keys = 0)
      : combine_(std::move(combine)), hash_(std::move(hash)), same_(std::move(same)), cmp_(std::move(cmp)),
        opt_(opt), bm_(opt.bm()), plan_(plan::hash_reduce(setup(opt), memory_bytes)),
        strategy_(mng::allocation_strategy::random_cycling(opt.seed)) {
    if (plan_.slots == 0) {
      const std::uint64_t need =
          plan::smallest_budget([&](std::uint64_t m) { return plan::hash_reduce(setup(opt), m).slots > 0; });
      throw std::invalid_argument("flow: reduce (hash table) needs a memory budget of at least " +
                                  std::to_string(need) + " bytes with blocks of " +
                                  std::to_string(plan_.geometry.bytes) + " bytes; got " +
                                  std::to_string(memory_bytes) + ". Give the reduce more memory or smaller blocks.");
    }
    table_ = io::aligned_buffer(static_cast<std::size_t>(plan_.table_bytes));
    data_ = reinterpret_cast<T*>(table_.data());
    used_ = reinterpret_cast<unsigned char*>(table_.data()) + plan_.slots * sizeof(T);
    // The first size: the expected keys at a load of 2/3, at least 4096 slots.
    slots_ = static_cast<std::size_t>(plan_.slots);
    if (expected_keys > 0 && expected_keys < plan_.slots / 2)
      slots_ = static_cast<std::size_t>(std::min<std::uint64_t>(plan_.slots, std::max<std::uint64_t>(4096, expected_keys * 3 / 2)));
    std::memset(used_, 0, slots_);
    result_.set_block_manager(&bm_);
    result_.set_geometry(plan_.geometry);
  }
  hash_reduce_runs(const hash_reduce_runs&) = delete;
  hash_reduce_runs& operator=(const hash_reduce_runs&) = delete;

  /// Adds one element: combined into its key's slot, or a new slot (the table is sorted
  /// and written as a run first if it is full). Elements wait in a small batch whose
  /// slots are prefetched together, so the table's cache misses overlap rather than
  /// follow one another (a table of a million keys does not fit in the caches).
  void push(const T& x) {
    if (finished_) [[unlikely]] throw std::logic_error("flow: hash_reduce_runs::push after result()");
    ++pushed_;
    batch_[batched_++] = x;
    if (batched_ == batch_.size()) drain_batch();
  }
  /// Adds every element of a stream node.
  template <class Node> void push_all(Node& in) {
    for_each(in, [this](const T& x) { push(x); });
  }

private:
  void drain_batch() {
    std::array<std::size_t, batch_elements> homes;
    for (std::size_t k = 0; k < batched_; ++k) {
      homes[k] = home(batch_[k]);
      __builtin_prefetch(data_ + homes[k]);
      __builtin_prefetch(used_ + homes[k]);
    }
    const std::size_t slots = slots_; // a home stays right while the table keeps its size
    for (std::size_t k = 0; k < batched_; ++k) insert(batch_[k], slots_ == slots ? homes[k] : home(batch_[k]));
    batched_ = 0;
  }

  void insert(const T& x, std::size_t i) {
    for (;;) {
      if (!used_[i]) {
        if (count_ == capacity()) [[unlikely]] {
          if (!grow()) spill();
          i = home(x);
          continue;
        }
        used_[i] = 1;
        data_[i] = x;
        ++count_;
        return;
      }
      if (same_(std::as_const(data_[i]), x)) {
        data_[i] = combine_(std::as_const(data_[i]), x);
        return;
      }
      if (++i == slots()) i = 0;
    }
  }

public:
  /// Elements pushed so far.
  std::uint64_t size() const noexcept { return pushed_; }
  /// Runs written so far (0: everything is still in the table).
  std::size_t spills() const noexcept { return result_.run_count(); }
  const plan::hash_reduce_shape& plan() const noexcept { return plan_; }

  /// Ends the input. Without spills: the table's keys sorted in memory, in the table,
  /// whose memory beyond them is given back (the merge that reads them is planned for
  /// their size, not the table's). With spills: the rest written as one more run (or
  /// kept in memory so with sort_options::keep_last_run), for reduce_merge. Frees the
  /// table (unless it is the result). Call once.
  algo::sorted_runs<T> result() {
    if (finished_) throw std::logic_error("flow: hash_reduce_runs::result called twice");
    drain_batch();
    finished_ = true;
    const std::size_t n = compact_and_sort();
    if (n > 0) {
      if (result_.run_count() == 0 || opt_.keep_last_run) {
        table_.shrink(n * sizeof(T)); // the sorted keys are at its front
        result_.add_memory(std::move(table_), data_, n);
      } else {
        write_run(n);
      }
    }
    table_.reset();
    data_ = nullptr;
    used_ = nullptr;
    return std::move(result_);
  }

private:
  static plan::sort_setup setup(const algo::sort_options& opt) { return algo::sort_setup_of<T, Cmp>(opt); }
  std::size_t slots() const noexcept { return slots_; }
  /// Keys the table holds at its current size (3/4 of its slots: probes stay short).
  std::uint64_t capacity() const noexcept { return slots_ == plan_.slots ? plan_.capacity : slots_ - slots_ / 4; }

  /// Doubles the table within its buffer (at most to the budget's slots): the keys are
  /// moved to the end of the buffer and inserted again. False when it is as large as the
  /// buffer allows.
  bool grow() {
    const std::size_t max = static_cast<std::size_t>(plan_.slots);
    const std::size_t next = std::min(2 * slots_, max - static_cast<std::size_t>(count_));
    if (next <= slots_) return false;
    std::size_t tail = max;
    for (std::size_t i = slots_; i-- > 0;) // from the top: a key never overwrites one not yet moved
      if (used_[i]) data_[--tail] = data_[i];
    slots_ = next;
    std::memset(used_, 0, slots_);
    for (std::size_t k = tail; k < max; ++k) {
      std::size_t i = home(data_[k]);
      while (used_[i])
        if (++i == slots_) i = 0;
      used_[i] = 1;
      data_[i] = data_[k];
    }
    return true;
  }

  std::size_t home(const T& x) const {
    std::uint64_t h = static_cast<std::uint64_t>(hash_(x));
    h ^= h >> 33; // murmur3's finalizer: every bit of the hash reaches the top bits
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return static_cast<std::size_t>((static_cast<unsigned __int128>(h) * slots_) >> 64);
  }

  // Moves the used slots to the front and sorts them by Cmp; returns how many.
  std::size_t compact_and_sort() {
    std::size_t j = 0;
    for (std::size_t i = 0; i < slots(); ++i) {
      if (!used_[i]) continue;
      if (j != i) data_[j] = data_[i];
      ++j;
    }
    std::sort(data_, data_ + j, algo::fast_less<T, Cmp>{cmp_});
    return j;
  }

  void spill() {
    write_run(compact_and_sort());
    std::memset(used_, 0, slots());
    count_ = 0;
  }

  // Writes data_[0, n) (sorted) as a run, straight from the table, and waits for it.
  void write_run(std::size_t n) {
    algo::run_info<T> run;
    std::vector<io::request_ptr> reqs =
        algo::detail::write_run_in_place(data_, n, plan_.geometry, bm_, strategy_, run_counter_++, run);
    try {
      io::wait_all(std::span<const io::request_ptr>(reqs));
    } catch (...) {
      run.release(bm_, plan_.geometry.bytes);
      throw;
    }
    auto& runs = result_.mutable_runs();
    if (runs.size() == runs.capacity()) runs.reserve(std::max<std::size_t>(16, 2 * runs.size()));
    runs.push_back(std::move(run));
    // the metadata must stay within its reserve (with room for one more spill)
    const std::size_t blocks = static_cast<std::size_t>(plan_.slots / plan_.geometry.elements);
    const std::size_t need =
        result_.metadata_bytes() + blocks * (sizeof(T) + 2 * plan::run_write_overhead) + 4096;
    if (need > plan_.metadata_reserve) {
      throw std::length_error("flow: reduce (hash table): the data has far more distinct keys than expected: " +
                              std::to_string(runs.size()) + " spilled runs need " + std::to_string(need) +
                              " bytes of metadata with room for one more, more than its reserve of " +
                              std::to_string(plan_.metadata_reserve) +
                              " bytes. Give the reduce more memory or larger blocks, or correct its ~ estimate.");
    }
  }

  [[no_unique_address]] Combine combine_;
  [[no_unique_address]] Hash hash_;
  [[no_unique_address]] Same same_;
  [[no_unique_address]] Cmp cmp_;
  algo::sort_options opt_;
  mng::block_manager& bm_;
  plan::hash_reduce_shape plan_;
  mng::allocation_strategy strategy_;
  std::size_t run_counter_ = 0;
  io::aligned_buffer table_;
  T* data_ = nullptr;
  unsigned char* used_ = nullptr;
  std::size_t slots_ = 0; // slots in use now (grow() doubles them up to plan_.slots)
  static constexpr std::size_t batch_elements = 64;
  std::array<T, batch_elements> batch_{}; // pushed, not yet in the table
  std::size_t batched_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t pushed_ = 0;
  bool finished_ = false;
  algo::sorted_runs<T> result_;
};

} // namespace flow::stream
