#pragma once
// An external stack (STXXL's grow_shrink_stack2): the top two blocks in memory, the rest
// on disk as full blocks. Growing writes the lower top block behind the computation;
// shrinking reads the next blocks down ahead of it. The two in-memory blocks give
// hysteresis, so push/pop alternating at a block boundary causes no I/O. Memory:
// memory_bytes / BlockBytes blocks (at least 3): 2 for the top, the rest shared by
// writes behind and reads ahead.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "flow/containers/block_pool.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/typed_block.hpp"

namespace flow::containers {

template <class T, std::size_t BlockBytes = (std::size_t{1} << 20)> class stack {
public:
  using value_type = T;
  using block_type = mng::typed_block<BlockBytes, T>;
  static constexpr std::size_t block_elements = block_type::size;

  explicit stack(std::size_t memory_bytes, mng::block_manager& bm = mng::block_manager::global(),
                 mng::allocation_strategy strategy = mng::allocation_strategy::striping())
      : bm_(bm), strategy_(std::move(strategy)),
        pool_(detail::block_pool<block_type>::blocks_for(memory_bytes, "stack")) {
    top_[0] = pool_.take();
    top_[1] = pool_.take();
    max_reads_ = pool_.max_reads_ahead();
  }
  ~stack() {
    pool_.close();
    bm_.free(on_disk_);
  }
  stack(const stack&) = delete;
  stack& operator=(const stack&) = delete;

  std::uint64_t size() const noexcept {
    return static_cast<std::uint64_t>(on_disk_.size()) * block_elements + in_memory_;
  }
  bool empty() const noexcept { return in_memory_ == 0 && on_disk_.empty(); }

  void push(const T& v) {
    if (in_memory_ == 2 * block_elements) spill();
    element(in_memory_++) = v;
  }
  /// The top element (reads a block from disk if the in-memory part is empty).
  const T& top() {
    if (in_memory_ == 0) refill("top");
    return element(in_memory_ - 1);
  }
  void pop() {
    if (in_memory_ == 0) refill("pop");
    --in_memory_;
  }

private:
  using Block = block_type;

  T& element(std::size_t i) noexcept {
    return i < block_elements ? (*top_[0])[i] : (*top_[1])[i - block_elements];
  }

  // Both top blocks are full: the lower one goes to disk (written behind).
  void spill() {
    const auto [id, fresh] = pool_.write_behind(top_[0], bm_, strategy_, on_disk_.size());
    on_disk_.push_back(id);
    top_[0] = top_[1];
    top_[1] = fresh;
    in_memory_ = block_elements;
  }

  // Nothing in memory: bring the topmost disk block back, then read further down ahead.
  void refill(const char* what) {
    if (on_disk_.empty()) {
      throw std::out_of_range(std::string("flow: ") + what + " on an empty external stack");
    }
    const mng::block_id id = on_disk_.back();
    if (pool_.reads_ahead() && pool_.first_read_id() == id) {
      Block* b = pool_.take_first_read();
      pool_.give_back(top_[0]);
      top_[0] = b;
    } else {
      // Pushes since the last read-ahead changed the order: those reads are stale.
      pool_.drop_reads();
      top_[0]->read(id)->wait();
    }
    on_disk_.pop_back();
    bm_.free(id);
    in_memory_ = block_elements;
    read_ahead();
  }

  void read_ahead() {
    std::size_t next = on_disk_.size() - pool_.reads_ahead(); // blocks below the read-ahead
    while (next > 0 && pool_.reads_ahead() < max_reads_ && pool_.has_free()) {
      --next;
      pool_.read_ahead(pool_.take(), on_disk_[next]);
    }
  }

  mng::block_manager& bm_;
  mng::allocation_strategy strategy_;
  detail::block_pool<Block> pool_;
  Block* top_[2] = {nullptr, nullptr};
  std::size_t in_memory_ = 0; // elements in top_[0] then top_[1]
  std::vector<mng::block_id> on_disk_; // full blocks, bottom first
  std::size_t max_reads_ = 1;
};

} // namespace flow::containers
