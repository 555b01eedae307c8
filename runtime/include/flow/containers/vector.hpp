#pragma once
// An external vector: elements in blocks on the block manager's disks, a small LRU cache
// of blocks in memory. push_back writes behind (a filled block starts its write at once,
// so by the time the cache evicts it the write is done); the last block moves only the
// 4 KiB pages its elements use; get/set go through the cache (one read per miss);
// scan() reads sequentially with prefetching. Its buffers never exceed the memory
// budget given at construction: the cache holds memory / block bytes blocks, and a scan
// borrows that same memory (the cache is emptied for the scan).
// The block size is a run-time value (a program's block() follows its --memory); get,
// set and modify on the block they used last compare the index with that block's range
// and divide only when the block changes, so v[i] costs what it did with the size fixed
// at compile time.
//
//   flow::containers::vector<u64> v(64 << 20);          // 64 MiB budget, default blocks
//   flow::containers::vector<u64> w(64 << 20, 1 << 20); // blocks of 1 MiB
//   for (u64 i = 0; i < n; ++i) v.push_back(i);
//   for (auto r = v.scan(); !r.empty(); ++r) use(*r);
#include "flow/defaults.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/io/request.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_istream.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/sized_block.hpp"

namespace flow::containers {


template <class T> class vector {
public:
  using value_type = T;
  using block_type = mng::sized_block<T>;

  /// A sequential reader that borrows the vector's memory for prefetch buffers. The
  /// vector cannot be changed or randomly accessed while a reader exists.
  class reader {
  public:
    using value_type = T;
    bool empty() const noexcept { return !in_ || in_->empty(); }
    const T& operator*() const noexcept { return **in_; }
    const T* operator->() const noexcept { return &**in_; }
    reader& operator++() {
      ++*in_;
      return *this;
    }
    std::span<const T> batch() const noexcept { return in_ ? in_->batch() : std::span<const T>(); }
    void advance(std::size_t n) { in_->advance(n); }
    std::uint64_t remaining() const noexcept { return in_ ? in_->remaining() : 0; }
    /// Stops reading and gives the prefetch buffers back (the reader is empty after).
    /// Generated code calls it where the reader's phase ends; the reader object lives
    /// to the end of its statement, and the plan gives its memory to later phases.
    void close() noexcept { in_.reset(); }
    ~reader() { --owner_.readers_; }
    reader(const reader&) = delete;
    reader& operator=(const reader&) = delete;

  private:
    friend class vector;
    reader(vector& owner, std::size_t buffers)
        : owner_(owner),
          in_(std::in_place, mng::block_sequence{owner.blocks_, owner.size_}, buffers, nullptr, owner.block_bytes_,
              owner.blocks_.empty() ? 0 : owner.stored_bytes(owner.blocks_.size() - 1)) {}
    vector& owner_;
    std::optional<mng::block_istream<block_type>> in_;
  };

  /// `memory_bytes` >= 2 blocks: the cache (and the buffers of a scan). A slot gets its
  /// block on first use, so a cache larger than the vector holds only the vector.
  /// `block_bytes`: a positive multiple of 4096 that holds at least one T.
  explicit vector(std::size_t memory_bytes, std::size_t block_bytes = flow::default_block_bytes,
                  mng::block_manager& bm = mng::block_manager::global(),
                  mng::allocation_strategy strategy = mng::allocation_strategy::striping());
  ~vector();
  vector(const vector&) = delete;
  vector& operator=(const vector&) = delete;

  std::uint64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t memory() const noexcept { return slots_.size() * block_bytes_; }
  std::size_t block_bytes() const noexcept { return block_bytes_; }
  std::size_t block_elements() const noexcept { return block_elements_; }
  const std::vector<mng::block_id>& blocks() const noexcept { return blocks_; }

  void push_back(const T& v) {
    if (tail_pos_ == tail_end_) start_tail();
    *tail_pos_++ = v;
    ++size_;
  }

  T get(std::uint64_t i) {
    check_index(i);
    return *element(i);
  }
  T operator[](std::uint64_t i) { return get(i); }
  T back() {
    if (size_ == 0) throw std::out_of_range("flow: back() of an empty external vector");
    return get(size_ - 1);
  }

  void set(std::uint64_t i, const T& v) {
    check_index(i);
    T* e = element(i);
    prepare_to_modify(slots_[last_slot_]);
    *e = v;
  }

  /// Element i for changing it in place: the block is marked changed (written back when
  /// evicted or flushed). The reference is valid until the vector's next operation.
  T& modify(std::uint64_t i) {
    check_index(i);
    T* e = element(i);
    prepare_to_modify(slots_[last_slot_]);
    return *e;
  }

  /// Gives the block cache (get, set, modify, push_back) `memory_bytes` (at least two
  /// blocks): changed blocks are written first. A script's `v[i]` in a phase gets the
  /// memory the planner sized for it, and the vector's own budget back after.
  void resize_cache(std::size_t memory_bytes);

  /// Gives the cache the budget the vector was made with again.
  void restore_cache() { resize_cache(budget_); }

  /// Writes the changed cached blocks and frees every cached block (the elements stay
  /// on disk; the next access reads its block again). A generated program calls it
  /// between statements: its plan gives a vector's buffers only to the phases that
  /// build, push to or index it, and an idle vector held up to its whole cache (DC3's
  /// vectors of 2 MiB blocks took suffix_array.flow 13 MiB past --memory 64MiB).
  void release_cache();

  /// Writes every changed cached block and waits for all writes (rethrows failures).
  void flush();

  /// Flushes, frees the cache and reads the whole vector with prefetching in the
  /// vector's memory. Readers may overlap (a script's `merge(v, v)` reads one vector
  /// twice at once): the first reads with the vector's memory, each further one with
  /// two blocks of its own.
  reader scan();

  /// Takes over the elements of `other`, which is left empty, and frees this vector's
  /// old blocks: `v = pipeline` builds the new contents aside (the pipeline may read v)
  /// and puts them in place once complete. Both use one block manager.
  void take_elements(vector& other);

  /// Removes every element and frees the blocks.
  void clear();

private:
  struct slot {
    std::unique_ptr<block_type> block; // allocated on first use
    std::uint64_t index = none;        // block index cached here
    bool dirty = false;
    io::request_ptr pending;           // write in flight from this buffer
    std::uint64_t last_use = 0;
  };
  static constexpr std::uint64_t none = static_cast<std::uint64_t>(-1);

  void check_index(std::uint64_t i) const {
    if (i >= size_) {
      throw std::out_of_range("flow: index " + std::to_string(i) +
                              " out of range of an external vector of " + std::to_string(size_) +
                              " elements");
    }
    if (readers_) throw std::logic_error("flow: random access to a vector while it is scanned");
  }
  void mutable_check(const char* what) const;

  static void wait_pending(slot& s) {
    if (s.pending) {
      io::request_ptr r = std::move(s.pending);
      r->wait();
    }
  }
  // The disk may still be reading the buffer for a write: never change it meanwhile.
  void prepare_to_modify(slot& s) {
    wait_pending(s);
    s.dirty = true;
  }
  void write_slot(slot& s);

  // Bytes of block b on disk: a whole block, but for the last one only the 4 KiB pages
  // its elements fill (a vector of 8,800 u32s in blocks of 4 MiB writes and reads 36 KiB).
  std::size_t stored_bytes(std::uint64_t b) const noexcept {
    if (b + 1 < blocks_.size()) return block_bytes_;
    const std::uint64_t used = (size_ - b * block_elements_) * sizeof(T);
    const std::uint64_t page = io::buffer_alignment;
    return static_cast<std::size_t>(std::max<std::uint64_t>(page, (used + page - 1) / page * page));
  }

  void drop_cache();

  // Element i (< size_): in the block used last, a subtraction and a compare (the fast
  // path of v[i]); else the block is found or read (a division, once per block change).
  T* element(std::uint64_t i) {
    const std::uint64_t offset = i - last_first_; // wraps to large when i < last_first_
    if (offset < last_count_) return last_data_ + offset;
    touch(block_of(i));
    return last_data_ + (i - last_first_);
  }
  // The block of element i: a shift when the elements per block are a power of two
  // (elements of 1, 2, 4, 8, ... bytes), as the compiler made of a division by a
  // compile-time size; else a division.
  std::uint64_t block_of(std::uint64_t i) const noexcept {
    return block_shift_ != no_shift ? i >> block_shift_ : i / block_elements_;
  }
  static unsigned shift_of(std::size_t elements) noexcept {
    if (elements == 0 || (elements & (elements - 1)) != 0) return no_shift;
    unsigned k = 0;
    while ((std::size_t{1} << k) < elements) ++k;
    return k;
  }
  // Makes block b the cached "last" block (reading it on a miss). Once per block change.
  void touch(std::uint64_t b) {
    int found = slot_of_[b];
    if (found < 0) found = static_cast<int>(load(b, true));
    last_slot_ = static_cast<std::size_t>(found);
    last_first_ = b * block_elements_;
    last_count_ = block_elements_;
    last_data_ = slots_[last_slot_].block->data();
    slots_[last_slot_].last_use = ++clock_;
  }
  void forget_last() noexcept {
    last_first_ = 0;
    last_count_ = 0; // no index hits
    last_data_ = nullptr;
  }

  // Picks a slot for block b (evicting the least recently used one) and reads b into it
  // if `read` is set; returns the slot index.
  std::size_t load(std::uint64_t b, bool read);

  // The tail block is full, not cached, or this is the first push: (re)establish it.
  void start_tail();

  mng::block_manager& bm_;
  mng::allocation_strategy strategy_;
  std::size_t block_bytes_;
  std::size_t block_elements_; // elements per block
  static constexpr unsigned no_shift = 64;
  unsigned block_shift_;        // log2(block_elements_) if a power of two, else no_shift
  std::vector<slot> slots_;
  std::vector<mng::block_id> blocks_;
  std::vector<int> slot_of_; // block index -> slot, -1 when not cached
  std::uint64_t size_ = 0;
  std::uint64_t clock_ = 0;
  // get/set fast path: the block used last holds elements [last_first_, last_first_ +
  // last_count_) at last_data_ (count 0: none).
  std::uint64_t last_first_ = 0;
  std::uint64_t last_count_ = 0;
  T* last_data_ = nullptr;
  std::size_t last_slot_ = 0;
  std::size_t tail_slot_ = none;
  T* tail_pos_ = nullptr; // push_back fast path: the free part of the tail block
  T* tail_end_ = nullptr;
  int readers_ = 0;
  std::size_t budget_ = 0; // the memory given at construction
};

// Below: the members that run once per run, block or refill, defined outside the class
// so that they are not inline. A program built in parts (flowc build -j, docs/install.md)
// then compiles them only in the part that instantiates the class (`template class`);
// the others see `extern template class` and call them.
template <class T>
vector<T>::vector(std::size_t memory_bytes, std::size_t block_bytes,
                  mng::block_manager& bm,
                  mng::allocation_strategy strategy)
    : bm_(bm), strategy_(std::move(strategy)), block_bytes_(block_bytes),
      block_elements_(block_bytes / sizeof(T)), block_shift_(shift_of(block_elements_)), budget_(memory_bytes) {
  if (block_bytes == 0 || block_bytes % io::buffer_alignment != 0 || block_elements_ == 0) {
    throw std::invalid_argument("flow: an external vector of " + std::to_string(sizeof(T)) + "-byte elements in blocks of " +
                                std::to_string(block_bytes) + " bytes (a block is a positive multiple of 4096 bytes "
                                "holding at least one element)");
  }
  if (memory_bytes / block_bytes < 2) {
    throw std::invalid_argument("flow: an external vector of " + std::to_string(block_bytes) +
                                "-byte blocks needs a memory budget of at least 2 blocks (" +
                                std::to_string(2 * block_bytes) + " bytes), got " +
                                std::to_string(memory_bytes));
  }
  slots_.resize(memory_bytes / block_bytes);
}

template <class T>
vector<T>::~vector() {
  for (auto& s : slots_) io::wait_quietly(s.pending);
  bm_.free(blocks_);
}

template <class T>
void vector<T>::resize_cache(std::size_t memory_bytes) {
  mutable_check("resize_cache");
  const std::size_t slots = std::max<std::size_t>(2, memory_bytes / block_bytes_);
  if (slots == slots_.size()) return;
  flush();
  drop_cache();
  slots_.clear();
  slots_.resize(slots);
  last_slot_ = 0;
  tail_slot_ = none;
}

template <class T>
void vector<T>::release_cache() {
  if (readers_) return; // a scan holds the vector's memory; it ends with its statement
  flush();
  drop_cache();
}

template <class T>
void vector<T>::flush() {
  for (auto& s : slots_) {
    if (s.dirty) write_slot(s);
  }
  for (auto& s : slots_) wait_pending(s);
  tail_pos_ = tail_end_ = nullptr; // the next push marks the tail dirty again
}

template <class T>
auto vector<T>::scan() -> reader {
  const bool first = readers_ == 0;
  if (first) {
    flush();
    drop_cache();
  }
  ++readers_;
  try {
    return reader(*this, first ? slots_.size() : 2);
  } catch (...) {
    --readers_;
    throw;
  }
}

template <class T>
void vector<T>::take_elements(vector& other) {
  mutable_check("refill");
  other.mutable_check("refill");
  other.flush();
  other.drop_cache();
  for (auto& s : slots_) wait_pending(s);
  drop_cache();
  bm_.free(blocks_);
  blocks_ = std::exchange(other.blocks_, {});
  slot_of_ = std::exchange(other.slot_of_, {});
  size_ = std::exchange(other.size_, 0);
}

template <class T>
void vector<T>::clear() {
  mutable_check("clear");
  for (auto& s : slots_) wait_pending(s);
  drop_cache();
  bm_.free(blocks_);
  blocks_.clear();
  slot_of_.clear();
  size_ = 0;
}

template <class T>
void vector<T>::write_slot(slot& s) {
  wait_pending(s);
  s.pending = s.block->write_first(blocks_[s.index], stored_bytes(s.index));
  s.dirty = false;
}

template <class T>
void vector<T>::drop_cache() {
  for (auto& s : slots_) {
    if (s.index != none) slot_of_[s.index] = -1;
    s.block.reset();
    s.index = none;
    s.dirty = false;
  }
  forget_last();
  tail_pos_ = tail_end_ = nullptr;
}

template <class T>
std::size_t vector<T>::load(std::uint64_t b, bool read) {
  if (readers_) throw std::logic_error("flow: external vector changed while it is scanned");
  std::size_t victim = 0;
  for (std::size_t k = 1; k < slots_.size(); ++k) {
    if (slots_[k].last_use < slots_[victim].last_use) victim = k;
  }
  slot& s = slots_[victim];
  if (s.index != none) {
    if (s.dirty) write_slot(s);
    wait_pending(s);
    slot_of_[s.index] = -1;
    if (victim == tail_slot_) tail_pos_ = tail_end_ = nullptr;
    if (victim == last_slot_) forget_last();
  }
  if (!s.block) s.block.reset(new block_type(block_bytes_));
  s.index = none;
  if (read) s.block->read_first(blocks_[b], stored_bytes(b))->wait();
  s.index = b;
  s.dirty = false;
  s.last_use = ++clock_;
  slot_of_[b] = static_cast<int>(victim);
  return victim;
}

template <class T>
void vector<T>::start_tail() {
  mutable_check("push_back");
  const std::uint64_t b = block_of(size_);
  std::size_t k;
  if (b == blocks_.size()) {
    // Write behind: the previous block is complete, start its write now.
    if (b > 0 && slot_of_[b - 1] >= 0) {
      slot& prev = slots_[static_cast<std::size_t>(slot_of_[b - 1])];
      if (prev.dirty) write_slot(prev);
    }
    blocks_.push_back(bm_.allocate(block_bytes_, strategy_, b));
    slot_of_.push_back(-1);
    k = load(b, false);
  } else {
    k = slot_of_[b] >= 0 ? static_cast<std::size_t>(slot_of_[b]) : load(b, true);
  }
  slot& s = slots_[k];
  prepare_to_modify(s);
  s.last_use = ++clock_;
  tail_slot_ = k;
  tail_pos_ = s.block->begin() + size_ % block_elements_;
  tail_end_ = s.block->end();
}

template <class T>
void vector<T>::mutable_check(const char* what) const {
  if (readers_) {
    throw std::logic_error(std::string("flow: external vector: ") + what +
                           " while a scan of it is in progress");
  }
}

} // namespace flow::containers
