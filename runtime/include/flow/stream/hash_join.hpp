#pragma once
// hash_join: the inner join of two streams in no key order, through a hash table of the
// right ("build") input; the left ("probe") input streams past it. The compiler uses it
// where nothing after the join depends on the order of its output (a reduce, through maps
// and filters): neither input is sorted, which is the whole cost of a merge join
// (flow/stream/join.hpp) on unsorted inputs.
//
//   auto j = flow::stream::hash_join(orders, customers,
//       [](const Order& o) { return hash(o.cust); }, [](const Customer& c) { return hash(c.id); },
//       [](const Order& o, const Customer& c) { return o.cust < c.id ? -1 : o.cust > c.id; },
//       [](const Order& o, const Customer& c) { return Row{o.amount, c.nation}; },
//       memory_bytes, block_bytes, expected_customers);
//   for (; !j.empty(); ++j) use(*j);
//
// Output: fn(l, r) for every left element l and right element r with compare(l, r) == 0,
// each pair once. The order is fixed by the inputs and the memory (the same at any
// thread count), but it is no key order: within a pass, the left elements in input
// order, each with its partners in the table's slot order.
//
// Memory (flow/plan/join_model.hpp has the arithmetic): memory_bytes holds the table —
// open addressing, a slot an element and a tag byte, at most 4/5 of the slots filled —
// and four block buffers. The table starts at the size for `expected_right` elements and
// grows within its memory (by doubling, its elements moved to the end of its memory and
// inserted again, so a first pass whose estimate was far too low may fill less than all
// of it; later passes use all of it). A right input that it cannot hold is joined in passes: the
// first fills the table, writes the rest of the right input to disk, and writes the left
// input to disk as it probes; each further pass fills the table from the right input's
// rest and probes with the left input read back. So a right input of any size joins in
// any memory of at least 5 blocks, costing I/O but never failing and never losing a row.
// Both inputs are read to their end once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flow/containers/vector.hpp"
#include "flow/io/buffer.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

namespace detail {

/// The build side's table: elements and tag bytes (0: an empty slot) in buffers of the
/// largest size the memory holds, of which the first `slots` are in use (pages are
/// touched only as the table reaches them).
template <class R, class Hash> class hash_join_table {
public:
  hash_join_table(std::size_t max_slots, std::size_t first_slots, Hash hash)
      : max_slots_(max_slots), slots_(std::min(std::max<std::size_t>(first_slots, 1), max_slots)),
        data_buffer_(max_slots * sizeof(R)), tag_buffer_(max_slots), hash_(std::move(hash)) {
    data_ = std::launder(reinterpret_cast<R*>(data_buffer_.data()));
    tags_ = reinterpret_cast<unsigned char*>(tag_buffer_.data());
    std::memset(tags_, 0, slots_);
  }

  static std::size_t home(std::uint64_t h, std::size_t slots) noexcept {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(h * 0x9e3779b97f4a7c15ULL) * slots) >> 64);
  }
  static unsigned char tag(std::uint64_t h) noexcept { return static_cast<unsigned char>((h >> 57) | 1); }

  /// Whether the table holds as many elements as it can (after growing as far as it may).
  bool full() {
    return count_ >= capacity(slots_) && !grow();
  }
  /// Inserts x (the table is not full()).
  void insert(const R& x) {
    const std::uint64_t h = hash_(x);
    std::size_t i = home(h, slots_);
    while (tags_[i] != 0)
      if (++i == slots_) i = 0;
    tags_[i] = tag(h);
    data_[i] = x;
    ++count_;
  }
  /// Empties the table for the next pass, at its largest (nothing needs moving now).
  void clear() noexcept {
    slots_ = max_slots_;
    std::memset(tags_, 0, slots_);
    count_ = 0;
  }
  std::uint64_t size() const noexcept { return count_; }
  std::size_t slots() const noexcept { return slots_; }
  const R* data() const noexcept { return data_; }
  const unsigned char* tags() const noexcept { return tags_; }

private:
  static std::uint64_t capacity(std::size_t slots) noexcept { return plan::hash_join_slots_hold(slots); }
  // Doubles the slots in use, at most to what leaves room at the end of the buffers for
  // the elements, which are moved there and inserted again. False when it cannot grow.
  bool grow() {
    const std::size_t next = std::min(2 * slots_, max_slots_ - static_cast<std::size_t>(count_));
    if (next <= slots_) return false;
    std::size_t tail = max_slots_;
    for (std::size_t i = slots_; i-- > 0;) // from the top: nothing is overwritten before it moves
      if (tags_[i]) data_[--tail] = data_[i];
    slots_ = next;
    std::memset(tags_, 0, slots_);
    count_ = 0;
    for (std::size_t k = tail; k < max_slots_; ++k) insert(data_[k]);
    return true;
  }

  std::size_t max_slots_, slots_;
  io::aligned_buffer data_buffer_, tag_buffer_;
  R* data_ = nullptr;
  unsigned char* tags_ = nullptr;
  Hash hash_;
  std::uint64_t count_ = 0;
};

} // namespace detail

template <class Left, class Right, class LeftHash, class RightHash, class Compare, class Fn> class hash_join_node {
  using L = value_t<Left>;
  using R = value_t<Right>;
  using table_type = detail::hash_join_table<R, RightHash>;
  static_assert(std::is_trivially_copyable_v<L> && std::is_trivially_copyable_v<R>,
                "a hash join may write its inputs to disk as bytes: they must be trivially copyable");
  /// Left elements hashed ahead of the one being joined, their slots prefetched, so that
  /// the table's cache misses overlap.
  static constexpr std::size_t ahead = 16;

public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, const L&, const R&>>;

  hash_join_node(Left&& left, Right&& right, LeftHash left_hash, RightHash right_hash, Compare compare, Fn fn,
                 std::size_t memory_bytes, std::size_t block_bytes, std::uint64_t expected_right,
                 mng::block_manager& bm = mng::block_manager::global())
      : left_(std::forward<Left>(left)), right_(std::forward<Right>(right)), left_hash_(std::move(left_hash)),
        compare_(std::move(compare)), fn_(std::move(fn)), block_bytes_(block_bytes), bm_(bm) {
    if (block_bytes == 0 || block_bytes % io::buffer_alignment != 0 || block_bytes < std::max(sizeof(L), sizeof(R))) {
      throw std::invalid_argument("flow: hash_join: the block size must be a positive multiple of 4096 bytes holding "
                                  "an element of each input, got " + std::to_string(block_bytes));
    }
    if (memory_bytes < plan::hash_join_min_memory(block_bytes)) {
      throw std::invalid_argument("flow: hash_join: needs a memory budget of at least 5 blocks (" +
                                  std::to_string(plan::hash_join_min_memory(block_bytes)) + " bytes: four to spill, "
                                  "one of table), got " + std::to_string(memory_bytes));
    }
    const std::uint64_t max_slots = plan::hash_join_slots(sizeof(R), memory_bytes, block_bytes);
    // Not expecting a count, the table starts at its largest.
    const std::uint64_t first =
        expected_right == 0 ? max_slots : plan::hash_join_table_bytes(expected_right, sizeof(R)) / (sizeof(R) + 1);
    table_ = std::make_unique<table_type>(static_cast<std::size_t>(max_slots),
                                          static_cast<std::size_t>(std::max<std::uint64_t>(first, 4096)),
                                          std::move(right_hash));
    ring_.resize(ahead);
    // The first pass: the table from the right input; what it cannot hold goes to disk.
    for (; !right_.empty(); ++right_) {
      if (table_->full()) {
        right_rest_.emplace(2 * block_bytes_, block_bytes_, bm_);
        for (; !right_.empty(); ++right_) right_rest_->push_back(*right_);
        left_copy_.emplace(2 * block_bytes_, block_bytes_, bm_);
        break;
      }
      table_->insert(*right_);
    }
    if (table_->size() == 0 && !right_rest_) { // nothing to join with
      (void)stream::count(left_);
      done_ = true;
      return;
    }
    find();
  }

  bool empty() const noexcept { return done_; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  hash_join_node& operator++() {
    find();
    return *this;
  }

  /// Passes over the left input so far (1 while the table held the whole right input).
  std::uint64_t passes() const noexcept { return passes_; }

private:
  struct pending {
    L value;
    std::uint64_t hash;
  };

  // The next output: goes on scanning the current left element's slots, then takes the
  // next left element, the next pass, or ends.
  void find() {
    const unsigned char* tags = table_->tags();
    const R* data = table_->data();
    std::size_t slots = table_->slots();
    while (true) {
      if (ring_size_ == 0) {
        top_up();
        if (ring_size_ == 0) {
          if (!next_pass()) {
            done_ = true;
            return;
          }
          slots = table_->slots(); // it may have grown
          continue;
        }
        at_ = table_type::home(ring_[head_].hash, slots);
      }
      const pending& p = ring_[head_];
      const unsigned char t = table_type::tag(p.hash);
      while (tags[at_] != 0) {
        const std::size_t i = at_;
        if (++at_ == slots) at_ = 0;
        if (tags[i] == t && compare_(p.value, data[i]) == 0) {
          current_ = fn_(p.value, data[i]);
          return;
        }
      }
      // This left element has met all its partners.
      head_ = head_ + 1 == ahead ? 0 : head_ + 1;
      --ring_size_;
      top_up();
      if (ring_size_ > 0) at_ = table_type::home(ring_[head_].hash, slots);
    }
  }

  // Fills the ring of left elements from the current source, prefetching their slots.
  void top_up() {
    while (ring_size_ < ahead) {
      pending* slot = &ring_[(head_ + ring_size_) % ahead];
      if (!left_read_) { // the first pass: the left input itself
        if (left_.empty()) break;
        slot->value = *left_;
        ++left_;
        if (left_copy_) left_copy_->push_back(slot->value);
      } else {
        if (left_read_->empty()) break;
        slot->value = **left_read_;
        ++*left_read_;
      }
      slot->hash = left_hash_(slot->value);
      const std::size_t i = table_type::home(slot->hash, table_->slots());
      __builtin_prefetch(table_->tags() + i);
      __builtin_prefetch(table_->data() + i);
      ++ring_size_;
    }
  }

  // After a pass over the left input: fills the table with the next part of the right
  // input's rest and reads the left input again. False when the rest is all joined.
  bool next_pass() {
    if (!right_rest_) return false;
    if (!right_read_) right_read_.reset(new auto(right_rest_->scan()));
    if (right_read_->empty()) return false;
    table_->clear();
    while (!right_read_->empty() && !table_->full()) {
      table_->insert(**right_read_);
      ++*right_read_;
    }
    left_read_.reset(); // its buffers go back before the next read takes its own
    left_read_.reset(new auto(left_copy_->scan()));
    ++passes_;
    head_ = ring_size_ = 0;
    return true;
  }

  input_storage<Left> left_;
  input_storage<Right> right_;
  LeftHash left_hash_;
  Compare compare_;
  Fn fn_;
  std::size_t block_bytes_;
  mng::block_manager& bm_;
  std::unique_ptr<table_type> table_;
  // The passes after the first: the right input's rest and a copy of the left input, on disk.
  std::optional<containers::vector<R>> right_rest_;
  std::optional<containers::vector<L>> left_copy_;
  std::unique_ptr<typename containers::vector<R>::reader> right_read_; // (readers do not move)
  std::unique_ptr<typename containers::vector<L>::reader> left_read_;
  std::vector<pending> ring_;
  std::size_t head_ = 0, ring_size_ = 0;
  std::size_t at_ = 0; // the next slot to look at for ring_[head_]
  std::uint64_t passes_ = 1;
  bool done_ = false;
  value_type current_{};
};

/// hash_join(left, right, left_hash, right_hash, compare, fn, memory_bytes, block_bytes,
/// expected_right[, bm]): the hash_join_node of its arguments (see the top of the file).
/// left_hash(l) and right_hash(r) give equal hashes for equal keys; compare(l, r) == 0
/// for equal keys.
template <class Left, class Right, class LeftHash, class RightHash, class Compare, class Fn>
hash_join_node<Left, Right, LeftHash, RightHash, Compare, Fn>
hash_join(Left&& left, Right&& right, LeftHash left_hash, RightHash right_hash, Compare compare, Fn fn,
          std::size_t memory_bytes, std::size_t block_bytes, std::uint64_t expected_right,
          mng::block_manager& bm = mng::block_manager::global()) {
  return {std::forward<Left>(left), std::forward<Right>(right), std::move(left_hash), std::move(right_hash),
          std::move(compare), std::move(fn), memory_bytes, block_bytes, expected_right, bm};
}

} // namespace flow::stream
