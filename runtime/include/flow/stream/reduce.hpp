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
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
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

/// The hash path of reduce (see the top of this file), partitioned by the key's hash as
/// plan::hash_reduce describes: push() puts an element and its hash in its partition's
/// staging area; when one is full, a round begins in which every partition inserts what it
/// staged into its own table, in input order, the partitions shared out among the threads
/// of sort_options (each taken whole by one thread; on the caller alone with
/// sort_options::inserts_on_caller). With more than one thread the round
/// runs on the helpers while push() fills the other set of staging areas, and the caller
/// joins it when that is full. A partition that finds its table full stops there; after
/// the round the whole table (every partition) is sorted and written as one run, and the
/// round goes on. Rounds follow one another, so where the table spills, and the order in
/// which each key is combined, depend on the input and the plan only: the same result at
/// any thread count, bit for bit.
/// Memory: one buffer of plan().slots elements and as many occupancy bytes, one for the
/// staging areas, plus the reserve for the metadata of the runs it writes. A spill sorts
/// the table where it is and writes it from there, waiting for the writes: on all threads
/// by run formation's sort (run_sort.hpp) in the room the table's free slots leave behind
/// its keys, or, where that room is too small for its scratch, with std::sort on one.
template <class T, class Cmp, class Hash, class Same, class Combine> class hash_reduce_runs {
  static_assert(algo::sort_order<Cmp, T>, "Cmp must be an order on T with min_value()/max_value() "
                                          "(see flow/algo/sort_traits.hpp); T trivially copyable");

public:
  using value_type = T;

  explicit hash_reduce_runs(std::size_t memory_bytes, Combine combine = Combine(), algo::sort_options opt = {})
      : hash_reduce_runs(memory_bytes, std::move(combine), opt, Hash(), Same(), Cmp()) {}
  /// `expected_keys`: the distinct keys the caller expects (0: not known). The partitions
  /// start with room for their share of them (and grow up to the budget when there are
  /// more), so a reduce with few keys works in tables that stay in the processor's caches
  /// rather than ones spread over the whole budget.
  hash_reduce_runs(std::size_t memory_bytes, Combine combine, algo::sort_options opt, Hash hash, Same same, Cmp cmp,
                   std::uint64_t expected_keys = 0)
      : combine_(std::move(combine)), hash_(std::move(hash)), same_(std::move(same)), cmp_(std::move(cmp)),
        opt_(opt), bm_(opt.bm()), plan_(plan::hash_reduce(setup(opt), memory_bytes, expected_keys)),
        strategy_(mng::allocation_strategy::random_cycling(opt.seed)) {
    if (plan_.slots == 0) {
      const std::uint64_t need = plan::smallest_budget(
          [&](std::uint64_t m) { return plan::hash_reduce(setup(opt), m, expected_keys).slots > 0; });
      throw std::invalid_argument("flow: reduce (hash table) needs a memory budget of at least " +
                                  std::to_string(need) + " bytes with blocks of " +
                                  std::to_string(plan_.geometry.bytes) + " bytes; got " +
                                  std::to_string(memory_bytes) + ". Give the reduce more memory or smaller blocks.");
    }
    const std::size_t k = static_cast<std::size_t>(plan_.partitions), ps = static_cast<std::size_t>(plan_.partition_slots);
    if (k > 1 && opt.thread_count() > 1) {
      if (opt.team) {
        team_ = opt.team;
      } else {
        own_team_ = std::make_unique<algo::thread_team>(static_cast<unsigned>(std::min<std::size_t>(opt.thread_count(), k)));
        team_ = own_team_.get();
      }
    }
    table_ = io::aligned_buffer(static_cast<std::size_t>(plan_.table_bytes));
    data_ = reinterpret_cast<T*>(table_.data());
    unsigned char* used = reinterpret_cast<unsigned char*>(table_.data()) + plan_.slots * sizeof(T);
    rounds_ = opt.inserts_on_caller ? nullptr : team_;
    // one set of staging areas where the rounds run on the caller (they do not overlap the input there)
    const std::size_t areas = rounds_ ? static_cast<std::size_t>(plan_.staging_areas) : 1;
    area_elements_ = k * static_cast<std::size_t>(plan_.staged);
    staging_ = io::aligned_buffer(areas * area_elements_ * (sizeof(std::uint64_t) + sizeof(T)));
    // the hashes first: the elements after them stay aligned (staged is a multiple of 64)
    staged_hashes_ = reinterpret_cast<std::uint64_t*>(staging_.data());
    staged_ = reinterpret_cast<T*>(staging_.data() + areas * area_elements_ * sizeof(std::uint64_t));
    for (std::size_t a = 0; a < areas; ++a) waiting_[a].assign(k, 0);
    const std::size_t first = static_cast<std::size_t>(plan_.first_slots);
    parts_ = std::vector<partition>(k);
    for (std::size_t p = 0; p < k; ++p) {
      parts_[p].data = data_ + p * ps;
      parts_[p].used = used + p * ps;
      parts_[p].slots = first;
      std::memset(parts_[p].used, 0, first);
    }
    stopped_.assign(k, 0);
    result_.set_block_manager(&bm_);
    result_.set_geometry(plan_.geometry);
  }
  hash_reduce_runs(const hash_reduce_runs&) = delete;
  hash_reduce_runs& operator=(const hash_reduce_runs&) = delete;
  ~hash_reduce_runs() {
    if (running_) { // an exception left a round running: its threads use the buffers
      try {
        rounds_->wait();
      } catch (...) {
      }
    }
  }

  /// Adds one element: staged in its key's partition; a full staging area starts a round
  /// of inserts (see above).
  void push(const T& x) {
    if (finished_) [[unlikely]] throw std::logic_error("flow: hash_reduce_runs::push after result()");
    ++pushed_;
    const std::uint64_t h = mixed_hash(x);
    const std::size_t p = partition_of(h);
    std::size_t& waiting = waiting_[filling_][p];
    const std::size_t at = staging_area(filling_, p) + waiting;
    staged_[at] = x;
    staged_hashes_[at] = h;
    if (++waiting == plan_.staged) round();
  }
  /// Adds every element of a stream node.
  template <class Node> void push_all(Node& in) {
    for_each(in, [this](const T& x) { push(x); });
  }

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
    finish_round();
    insert_round(filling_);
    finished_ = true;
    staging_.reset();
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
    parts_.clear();
    return std::move(result_);
  }

private:
  // One partition's table, in its range of the table buffer.
  struct alignas(64) partition {
    T* data = nullptr;
    unsigned char* used = nullptr;
    std::size_t slots = 0;   // slots in use now (grow() enlarges them, plan::hash_grown_slots)
    std::uint64_t count = 0; // keys in the table
    std::size_t done = 0;    // of its staged elements in the round, those inserted
  };

  static plan::sort_setup setup(const algo::sort_options& opt) { return algo::sort_setup_of<T, Cmp>(opt); }

  std::uint64_t mixed_hash(const T& x) const {
    std::uint64_t h = static_cast<std::uint64_t>(hash_(x));
    h ^= h >> 33; // murmur3's finalizer: every bit of the hash reaches the top bits
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }
  // The top bits of the hash pick the partition, the rest (multiplied again) the slot.
  std::size_t partition_of(std::uint64_t h) const noexcept {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(h) * plan_.partitions) >> 64);
  }
  static std::size_t home(std::uint64_t h, std::size_t slots) noexcept {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(h * 0x9e3779b97f4a7c15ULL) * slots) >> 64);
  }
  // Where partition p's staging area of set `area` starts in staged_ / staged_hashes_.
  std::size_t staging_area(std::size_t area, std::size_t p) const noexcept {
    return area * area_elements_ + p * static_cast<std::size_t>(plan_.staged);
  }
  /// Keys a partition holds at its current size (3/4 of its slots: probes stay short).
  std::uint64_t capacity(const partition& q) const noexcept { return q.slots - q.slots / 4; }

  // A staging area is full: the round of the other set (if running) is finished first;
  // then this set's round runs, on the helpers while the caller fills the other set, or
  // here with one thread.
  void round() {
    finish_round();
    if (!rounds_) {
      insert_round(filling_);
      return;
    }
    round_area_ = filling_;
    next_partition_.store(0, std::memory_order_relaxed);
    running_ = true;
    rounds_->start([this](unsigned) { insert_claimed(); });
    filling_ ^= 1;
  }

  // The running round: the caller takes the partitions left, waits for the helpers and,
  // if a table was full, spills and goes on.
  void finish_round() {
    if (!running_) return;
    running_ = false;
    std::exception_ptr mine = algo::run_catching([&] { insert_claimed(); });
    rounds_->wait();
    if (mine) std::rethrow_exception(mine);
    insert_round(round_area_);
  }

  // Runs the round of staging set `area` to its end, here (with the helpers, if any):
  // each partition inserts what it has not yet, and as long as one stops at a full
  // table, the table spills and they go on. Then the set is empty.
  void insert_round(std::size_t area) {
    round_area_ = area;
    for (;;) {
      const bool full = std::find(stopped_.begin(), stopped_.end(), 1) != stopped_.end();
      bool done = true;
      for (std::size_t p = 0; p < parts_.size(); ++p) done = done && parts_[p].done == waiting_[area][p];
      if (done && !full) break;
      if (full) spill();
      std::fill(stopped_.begin(), stopped_.end(), 0);
      next_partition_.store(0, std::memory_order_relaxed);
      if (rounds_)
        rounds_->run([this](unsigned) { insert_claimed(); });
      else
        insert_claimed();
    }
    for (partition& q : parts_) q.done = 0;
    std::fill(waiting_[area].begin(), waiting_[area].end(), 0);
  }

  // Takes partitions of the round one by one until none is left, and inserts theirs.
  void insert_claimed() {
    for (std::size_t p; (p = next_partition_.fetch_add(1, std::memory_order_relaxed)) < parts_.size();)
      stopped_[p] = !insert_waiting(parts_[p], round_area_, p);
  }

  // Inserts partition p's staged elements of the round not inserted yet, each one's slot
  // prefetched `ahead` elements before, so that the table's cache misses overlap rather
  // than follow one another. False: it stopped at an element with a new key that its
  // full table has no room for.
  bool insert_waiting(partition& q, std::size_t area, std::size_t p) {
    constexpr std::size_t ahead = 16;
    const std::size_t from = staging_area(area, p);
    const T* xs = staged_ + from;
    const std::uint64_t* hs = staged_hashes_ + from;
    const std::size_t n = waiting_[area][p];
    // the table in locals: a store to data[i] may not alias them
    T* data = q.data;
    unsigned char* used = q.used;
    std::size_t slots = q.slots;
    std::uint64_t count = q.count, room = capacity(q);
    auto prefetch = [&](std::uint64_t h) {
      const std::size_t i = home(h, slots);
      __builtin_prefetch(data + i);
      __builtin_prefetch(used + i);
    };
    std::size_t k = q.done;
    for (std::size_t j = k; j < std::min(n, k + ahead); ++j) prefetch(hs[j]);
    bool stopped = false;
    for (; k < n; ++k) {
      if (k + ahead < n) prefetch(hs[k + ahead]);
      const T& x = xs[k];
      std::size_t i = home(hs[k], slots);
      for (;;) {
        if (!used[i]) {
          if (count == room) [[unlikely]] {
            q.count = count;
            if (!grow(q)) {
              stopped = true; // x is not inserted: the round goes on from it after the spill
              break;
            }
            slots = q.slots;
            room = capacity(q);
            i = home(hs[k], slots);
            continue;
          }
          used[i] = 1;
          data[i] = x;
          ++count;
          break;
        }
        if (same_(std::as_const(data[i]), x)) {
          data[i] = combine_(std::as_const(data[i]), x);
          break;
        }
        if (++i == slots) i = 0;
      }
      if (stopped) break;
    }
    q.count = count;
    q.done = k;
    return !stopped;
  }

  /// Grows q's full table within its range (plan::hash_grown_slots): the keys are moved
  /// to the end of the range and inserted again. False when it cannot grow.
  bool grow(partition& q) {
    const std::size_t max = static_cast<std::size_t>(plan_.partition_slots);
    const std::size_t next = static_cast<std::size_t>(plan::hash_grown_slots(q.slots, max)); // q is full
    if (next <= q.slots) return false;
    std::size_t tail = max;
    for (std::size_t i = q.slots; i-- > 0;) // from the top: a key never overwrites one not yet moved
      if (q.used[i]) q.data[--tail] = q.data[i];
    q.slots = next;
    std::memset(q.used, 0, q.slots);
    for (std::size_t k = tail; k < max; ++k) {
      std::size_t i = home(mixed_hash(q.data[k]), q.slots);
      while (q.used[i])
        if (++i == q.slots) i = 0;
      q.used[i] = 1;
      q.data[i] = q.data[k];
    }
    return true;
  }

  // Moves every partition's keys to the front of the table and sorts them by Cmp;
  // returns how many.
  std::size_t compact_and_sort() {
    std::size_t j = 0;
    for (const partition& q : parts_)
      for (std::size_t i = 0; i < q.slots; ++i) {
        if (!q.used[i]) continue;
        data_[j++] = q.data[i]; // j <= the index of q.data + i: nothing unread is overwritten
      }
    sort_keys(j);
    return j;
  }

  // Sorts data_[0, n) by Cmp. Past the keys the table's memory is free (its occupancy
  // bytes are cleared after a spill, unused after the last sort): where it holds what
  // run formation's sort needs beside the keys (the (key, index) pairs of an indirect
  // sort, or a scratch array), that sort runs on all threads there; an indirect sort's
  // order is then applied in place, cycle by cycle.
  void sort_keys(std::size_t n) {
    using traits = algo::run_sort_traits<T, Cmp>;
    const std::size_t keys = reinterpret_cast<std::byte*>(data_ + n) - table_.data();
    const std::size_t from = (keys + 63) / 64 * 64; // (the table starts aligned)
    const std::size_t need = traits::indirect ? n * traits::extra_bytes_per_element : n * sizeof(T);
    std::byte* const free = table_.data() + from;
    if (n < 2 || from + need > plan_.table_bytes) {
      std::sort(data_, data_ + n, algo::fast_less<T, Cmp>{cmp_});
      return;
    }
    std::optional<algo::thread_team> alone;
    algo::thread_team& team = team_ ? *team_ : alone.emplace(1);
    if constexpr (traits::indirect) {
      algo::key_index* order = const_cast<algo::key_index*>(algo::sort_keys_indirect<T, Cmp>(data_, n, cmp_, team, free));
      for (std::size_t i = 0; i < n; ++i) { // position k takes the key at order[k].index
        if (order[i].index == i) continue;
        const T first = data_[i];
        std::size_t k = i;
        for (;;) {
          const std::size_t source = order[k].index;
          order[k].index = static_cast<std::uint32_t>(k); // placed
          if (source == i) {
            data_[k] = first;
            break;
          }
          data_[k] = data_[source];
          k = source;
        }
      }
    } else {
      T* sorted = algo::sort_run(data_, reinterpret_cast<T*>(free), n, cmp_, team);
      if (sorted != data_) std::memcpy(static_cast<void*>(data_), static_cast<const void*>(sorted), n * sizeof(T));
    }
  }

  void spill() {
    write_run(compact_and_sort());
    for (partition& q : parts_) {
      std::memset(q.used, 0, q.slots);
      q.count = 0;
    }
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
    result_.add_run(std::move(run));
    // The metadata must stay within its reserve (with room for one more spill): when the
    // runs' first elements would not, they go to disk (the merger reads them back a page
    // at a time), and only the run list stays.
    const std::size_t blocks = static_cast<std::size_t>(plan_.slots / plan_.geometry.elements);
    const auto need = [&] { return result_.metadata_bytes() + blocks * plan::run_block_metadata(sizeof(T)) + 4096; };
    if (need() > plan_.metadata_reserve) result_.spill_firsts(strategy_, run_counter_);
    if (need() > plan_.metadata_reserve) {
      throw std::length_error("flow: reduce (hash table): the data has far more distinct keys than expected: " +
                              std::to_string(result_.run_count()) + " spilled runs need " + std::to_string(need()) +
                              " bytes of metadata with room for one more (their first elements on disk), more "
                              "than its reserve of " +
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
  io::aligned_buffer table_;   // the partitions' slots, then their occupancy bytes
  io::aligned_buffer staging_; // the staged elements' hashes, then the elements
  T* data_ = nullptr;
  T* staged_ = nullptr;
  std::uint64_t* staged_hashes_ = nullptr;
  std::vector<partition> parts_;
  std::size_t area_elements_ = 0;             // of a set of staging areas
  std::array<std::vector<std::size_t>, 2> waiting_; // per set and partition: elements staged
  std::size_t filling_ = 0;                   // the set push() fills
  std::size_t round_area_ = 0;                // the set whose round runs
  bool running_ = false;                      // on the helpers, started by round()
  std::atomic<std::size_t> next_partition_{0}; // the next partition of the round to take
  std::vector<unsigned char> stopped_;        // per partition: its table was full in the round
  std::unique_ptr<algo::thread_team> own_team_;
  algo::thread_team* team_ = nullptr;   // a spill's sort (null: one thread)
  algo::thread_team* rounds_ = nullptr; // the insert rounds (null: on the caller's thread)
  std::uint64_t pushed_ = 0;
  bool finished_ = false;
  algo::sorted_runs<T> result_;
};

} // namespace flow::stream
