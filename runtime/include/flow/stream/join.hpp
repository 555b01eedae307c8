#pragma once
// join / left_join: the merge join of two streams, each sorted ascending by the join key
// (the compiler sorts them or knows they are). Both inputs are read once, front to back.
//
//   auto j = flow::stream::join(orders, customers,
//       [](const Order& o, const Customer& c) { return o.cust < c.id ? -1 : o.cust > c.id; },
//       [](const Customer& a, const Customer& b) { return a.id == b.id; },
//       [](const Order& o, const Customer& c) { return Row{o.amount, c.nation}; },
//       memory_bytes, block_bytes);
//   for (; !j.empty(); ++j) use(*j);
//   // left_join(...) takes fn(const L&, const R&, bool found) and also gives one output
//   // for every left element without a partner (an R{} and found == false).
//
// Output: fn(l, r) for every left element l and right element r with compare(l, r) == 0,
// in key order; within a key, for each left element (in input order) all right elements
// of the key (in input order). left_join adds fn(l, R{}, false) for every unmatched l, at
// its position.
//
// Memory: only the right side is buffered, one key group at a time (the left elements of
// a key stream past it). The group is kept in blocks of `block_bytes` (counted I/O
// buffers, io::buffer_memory): up to memory_bytes / block_bytes - 2 blocks in memory,
// the rest of a larger group goes to disk through two spill buffers and is re-read for
// every left element of the key, so a skewed key costs I/O but never fails and never
// loses a row. memory_bytes must be at least 3 blocks (std::invalid_argument otherwise).
// flow/plan/join_model.hpp has the arithmetic (capacity, I/O of a spilled group) for
// planners. Small heap bookkeeping (block ids, chunk pointers) is not counted.
//
// When one input ends, the other is still read to its end (and dropped): an input that
// also feeds others (tee) must see all its elements, and the planner's estimate of the
// inputs' I/O assumes full reads.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flow/io/buffer.hpp"
#include "flow/io/request.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

namespace detail {

/// One key group of right elements: appended once, then scanned any number of times.
/// Blocks 0 .. memory_blocks-1 live in memory (allocated as the group grows and kept for
/// the next groups); blocks past them ("spill blocks") pass through two buffers and are
/// written to disk, except when there are at most two of them: then both stay in the
/// buffers and nothing is written or read.
template <class R> class join_group {
  static_assert(std::is_trivially_copyable_v<R>,
                "a join's right elements may be written to disk as bytes: they must be trivially copyable");

public:
  join_group(std::size_t memory_bytes, std::size_t block_bytes, mng::block_manager& bm)
      : block_bytes_(block_bytes), per_block_(plan::join_block_elements(sizeof(R), block_bytes)),
        memory_blocks_(plan::join_memory_blocks(memory_bytes, block_bytes)), bm_(bm) {
    if (block_bytes == 0 || block_bytes % io::buffer_alignment != 0 || per_block_ == 0) {
      throw std::invalid_argument("flow: join: the block size must be a positive multiple of 4096 bytes "
                                  "holding at least one " + std::to_string(sizeof(R)) +
                                  "-byte element, got " + std::to_string(block_bytes));
    }
    if (memory_bytes < plan::join_min_memory(block_bytes)) {
      throw std::invalid_argument("flow: join: needs a memory budget of at least 3 blocks (" +
                                  std::to_string(plan::join_min_memory(block_bytes)) + " bytes: one for the key "
                                  "group, two to spill a larger group), got " + std::to_string(memory_bytes));
    }
  }
  ~join_group() {
    quiet_wait(0);
    quiet_wait(1);
    release_disk();
  }
  join_group(const join_group&) = delete;
  join_group& operator=(const join_group&) = delete;

  // --- filling ------------------------------------------------------------------------
  void clear() {
    wait(0);
    wait(1);
    release_disk();
    size_ = 0;
    spilled_ = 0;
    pos_ = end_ = nullptr;
  }
  void push(const R& v) {
    if (pos_ == end_) next_tail_block();
    *pos_++ = v;
    ++size_;
  }
  /// Ends the group: writes the last spill block if the group went to disk, waits for
  /// every write (rethrowing a failure).
  void finish() {
    if (spilled_ > 2) {
      const std::size_t k = spilled_ - 1;
      R* b = spill_data(k % 2);
      const std::size_t used = static_cast<std::size_t>(pos_ - b);
      std::memset(static_cast<void*>(b + used), 0, (per_block_ - used) * sizeof(R)); // no stale elements on disk
      write_spill(k);
      wait(0);
      wait(1);
    }
    pos_ = end_ = nullptr;
  }
  std::uint64_t size() const noexcept { return size_; }
  const R& front() const noexcept { return chunk_data(0)[0]; }
  /// Spill blocks of the current group (written to disk when more than 2).
  std::size_t spilled_blocks() const noexcept { return spilled_; }

  // --- scanning -----------------------------------------------------------------------
  /// A position in the group: [pos, end) is the rest of block `block`.
  struct cursor {
    const R* pos = nullptr;
    const R* end = nullptr;
    std::size_t block = 0;
  };
  /// Starts a scan at the first element (the group is not empty). Starts reading the
  /// first two spill blocks at once, so they arrive while the memory blocks are used.
  void start(cursor& c) {
    if (spilled_ > 2) {
      issue_read(0);
      issue_read(1);
    }
    enter(c, 0);
  }
  /// Moves to the next block; false at the end of the group.
  bool next_block(cursor& c) {
    const std::size_t b = c.block + 1;
    if (b >= block_count()) return false;
    if (b > memory_blocks_ && spilled_ > 2) {
      // Done with spill block b-1 - memory_blocks_: its buffer takes the block after b.
      const std::size_t k = b - memory_blocks_;
      if (k + 1 < spilled_) issue_read(k + 1);
    }
    enter(c, b);
    return true;
  }

private:
  std::size_t block_count() const noexcept {
    return static_cast<std::size_t>((size_ + per_block_ - 1) / per_block_);
  }
  std::size_t elements_in(std::size_t b) const noexcept {
    const std::uint64_t rest = size_ - std::uint64_t{b} * per_block_;
    return rest < per_block_ ? static_cast<std::size_t>(rest) : per_block_;
  }
  R* chunk_data(std::size_t i) const noexcept {
    return std::launder(reinterpret_cast<R*>(chunks_[i].data()));
  }
  R* spill_data(std::size_t i) const noexcept {
    return std::launder(reinterpret_cast<R*>(spill_[i].data()));
  }

  void enter(cursor& c, std::size_t b) {
    const R* data;
    if (b < memory_blocks_) {
      data = chunk_data(b);
    } else {
      const std::size_t k = b - memory_blocks_;
      wait(k % 2); // the read issued for it (nothing when the group never went to disk)
      data = spill_data(k % 2);
    }
    c.block = b;
    c.pos = data;
    c.end = data + elements_in(b);
  }

  // The tail block is full (or this is the first push): open block size_ / per_block_.
  void next_tail_block() {
    const std::size_t b = static_cast<std::size_t>(size_ / per_block_);
    R* data;
    if (b < memory_blocks_) {
      if (b == chunks_.size()) chunks_.emplace_back(block_bytes_);
      data = chunk_data(b);
    } else {
      const std::size_t k = b - memory_blocks_;
      if (spill_[0].size() == 0) { // first spill ever: the two buffers, kept from now on
        for (auto& s : spill_) {
          s = io::aligned_buffer(block_bytes_);
          std::memset(s.data(), 0, block_bytes_); // the padding after the elements goes to disk as zeros
        }
      }
      if (k == 2) write_spill(0); // a third spill block: the group goes to disk
      if (k >= 2) write_spill(k - 1); // write behind: block k-1 is complete
      wait(k % 2);                    // buffer k % 2 was being written with block k-2
      spilled_ = k + 1;
      data = spill_data(k % 2);
    }
    pos_ = data;
    end_ = data + per_block_;
  }

  void write_spill(std::size_t k) {
    const std::size_t i = k % 2;
    wait(i);
    if (ids_.size() <= k) ids_.resize(k + 1);
    ids_[k] = bm_.allocate(block_bytes_, strategy_, k);
    pending_[i] = ids_[k].storage->file().awrite(spill_[i].data(), ids_[k].offset, block_bytes_);
  }
  void issue_read(std::size_t k) {
    const std::size_t i = k % 2;
    wait(i);
    pending_[i] = ids_[k].storage->file().aread(spill_[i].data(), ids_[k].offset, block_bytes_);
  }
  void wait(std::size_t i) {
    if (pending_[i]) {
      io::request_ptr r = std::move(pending_[i]);
      r->wait();
    }
  }
  void quiet_wait(std::size_t i) noexcept {
    try {
      wait(i);
    } catch (...) {
    }
  }
  void release_disk() noexcept {
    for (const auto& id : ids_) {
      if (id.valid()) {
        try {
          bm_.free(id);
        } catch (...) {
        }
      }
    }
    ids_.clear();
  }

  const std::size_t block_bytes_;
  const std::size_t per_block_;
  const std::size_t memory_blocks_;
  mng::block_manager& bm_;
  mng::allocation_strategy strategy_ = mng::allocation_strategy::striping();
  std::vector<io::aligned_buffer> chunks_; // memory blocks, allocated on first use
  io::aligned_buffer spill_[2];
  io::request_ptr pending_[2];             // read or write in flight from spill_[i]
  std::vector<mng::block_id> ids_;         // disk blocks of the spill blocks
  std::uint64_t size_ = 0;
  std::size_t spilled_ = 0;
  R* pos_ = nullptr; // push fast path: the free part of the tail block
  R* end_ = nullptr;
};

} // namespace detail

/// The merge join (Outer = false) or left join (Outer = true); see the top of the file.
template <class Left, class Right, class Compare, class SameRight, class Fn, bool Outer> class join_node {
  using L = value_t<Left>;
  using R = value_t<Right>;
  using group_type = detail::join_group<R>;
  static constexpr auto result_type() {
    if constexpr (Outer) {
      return std::type_identity<std::remove_cvref_t<std::invoke_result_t<Fn&, const L&, const R&, bool>>>{};
    } else {
      return std::type_identity<std::remove_cvref_t<std::invoke_result_t<Fn&, const L&, const R&>>>{};
    }
  }

public:
  using value_type = typename decltype(result_type())::type;

  join_node(Left&& left, Right&& right, Compare compare, SameRight same_right, Fn fn, std::size_t memory_bytes,
            std::size_t block_bytes, mng::block_manager& bm = mng::block_manager::global())
      : left_(std::forward<Left>(left)), right_(std::forward<Right>(right)), compare_(std::move(compare)),
        same_(std::move(same_right)), fn_(std::move(fn)),
        group_(std::make_unique<group_type>(memory_bytes, block_bytes, bm)) {
    find();
  }

  bool empty() const noexcept { return state_ == state::done; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  join_node& operator++() {
    if (state_ == state::matched) {
      if (++cur_.pos != cur_.end || group_->next_block(cur_)) { // the next right element
        emit_match();
        return *this;
      }
      ++left_; // this left element has met the whole group
      if (!left_.empty() && compare_(*left_, group_->front()) == 0) { // the next one of the key
        group_->start(cur_);
        emit_match();
        return *this;
      }
    } else if (state_ == state::unmatched) {
      ++left_;
    } else {
      return *this;
    }
    find();
    return *this;
  }

private:
  enum class state { matched, unmatched, done };

  // Finds the next output after the current left element was finished: skips right
  // elements below the left key and (inner join) left elements below the right key.
  void find() {
    while (true) {
      if (left_.empty()) {
        (void)stream::count(right_); // read to the end (see the top of the file)
        state_ = state::done;
        return;
      }
      if (right_.empty()) {
        if constexpr (Outer) {
          emit_unmatched();
        } else {
          (void)stream::count(left_);
          state_ = state::done;
        }
        return;
      }
      const int c = compare_(*left_, *right_);
      if (c < 0) {
        if constexpr (Outer) {
          emit_unmatched();
          return;
        } else {
          ++left_;
        }
      } else if (c > 0) {
        ++right_;
      } else {
        load_group();
        group_->start(cur_);
        emit_match();
        return;
      }
    }
  }
  // Buffers the right elements equal to the current one (the right input moves past them).
  void load_group() {
    group_->clear();
    group_->push(*right_);
    ++right_;
    while (!right_.empty() && same_(group_->front(), *right_)) {
      group_->push(*right_);
      ++right_;
    }
    group_->finish();
  }
  void emit_match() {
    if constexpr (Outer) {
      current_ = fn_(*left_, *cur_.pos, true);
    } else {
      current_ = fn_(*left_, *cur_.pos);
    }
    state_ = state::matched;
  }
  void emit_unmatched() {
    if constexpr (Outer) {
      static const R missing{}; // value-initialized: zero-filled
      current_ = fn_(*left_, missing, false);
      state_ = state::unmatched;
    }
  }

  input_storage<Left> left_;
  input_storage<Right> right_;
  Compare compare_;
  SameRight same_;
  Fn fn_;
  // Behind a pointer so the node can be moved (into map(join(...), fn), say): the cursor
  // points into the group's buffers, which do not move with it.
  std::unique_ptr<group_type> group_;
  typename group_type::cursor cur_;
  state state_ = state::done;
  value_type current_{};
};

/// What `join` and `left_join` are: join(left, right, compare, same_right, fn,
/// memory_bytes, block_bytes[, bm]) builds the join_node of its arguments.
template <bool LeftJoin> struct join_maker {
  template <class Left, class Right, class Compare, class SameRight, class Fn>
  join_node<Left, Right, Compare, SameRight, Fn, LeftJoin>
  operator()(Left&& left, Right&& right, Compare compare, SameRight same_right, Fn fn, std::size_t memory_bytes,
             std::size_t block_bytes, mng::block_manager& bm = mng::block_manager::global()) const {
    return {std::forward<Left>(left), std::forward<Right>(right), std::move(compare), std::move(same_right),
            std::move(fn), memory_bytes, block_bytes, bm};
  }
};

/// Inner merge join: fn(l, r) for every pair with compare(l, r) == 0 (see the top of the
/// file). compare(l, r) -> int (<0, 0, >0 by key), same_right(r1, r2) -> bool (equal
/// keys), memory_bytes >= 3 * block_bytes, block_bytes a multiple of 4096.
inline constexpr join_maker<false> join;

/// Left merge join: like join, with fn(l, r, found); every left element without a
/// partner gives fn(l, R{}, false) at its position.
inline constexpr join_maker<true> left_join;

} // namespace flow::stream
