#pragma once
// An external FIFO queue: the head block (where pop reads) and the tail block (where push
// writes) in memory, the full blocks in between on disk. A filled tail block is written
// behind; the blocks after the head are read ahead in FIFO order. While the queue fits
// in the two blocks it does no I/O at all. Memory: memory_bytes / BlockBytes blocks (at
// least 3): head, tail, and the rest shared by writes behind and reads ahead.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>

#include "flow/containers/block_pool.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/typed_block.hpp"

namespace flow::containers {

template <class T, std::size_t BlockBytes = (std::size_t{1} << 20)> class queue {
public:
  using value_type = T;
  using block_type = mng::typed_block<BlockBytes, T>;
  static constexpr std::size_t block_elements = block_type::size;

  explicit queue(std::size_t memory_bytes, mng::block_manager& bm = mng::block_manager::global(),
                 mng::allocation_strategy strategy = mng::allocation_strategy::striping())
      : bm_(bm), strategy_(std::move(strategy)),
        pool_(detail::block_pool<block_type>::blocks_for(memory_bytes, "queue")) {
    head_ = pool_.take();
    tail_ = pool_.take();
    max_reads_ = pool_.max_reads_ahead();
  }
  ~queue() {
    pool_.close();
    for (const auto& id : on_disk_) bm_.free(id);
  }
  queue(const queue&) = delete;
  queue& operator=(const queue&) = delete;

  std::uint64_t size() const noexcept {
    return (head_end_ - head_pos_) + static_cast<std::uint64_t>(on_disk_.size()) * block_elements +
           tail_count_;
  }
  bool empty() const noexcept { return size() == 0; }

  void push(const T& v) {
    if (tail_count_ == block_elements) tail_full();
    (*tail_)[tail_count_++] = v;
  }
  /// The oldest element.
  const T& front() {
    if (head_pos_ == head_end_) next_head("front");
    return (*head_)[head_pos_];
  }
  void pop() {
    if (head_pos_ == head_end_) next_head("pop");
    ++head_pos_;
  }

private:
  using Block = block_type;

  void tail_full() {
    const auto [id, fresh] = pool_.write_behind(tail_, bm_, strategy_, blocks_written_);
    ++blocks_written_;
    on_disk_.push_back(id);
    tail_ = fresh;
    tail_count_ = 0;
    read_ahead();
  }

  void next_head(const char* what) {
    if (!on_disk_.empty()) {
      const mng::block_id id = on_disk_.front();
      if (pool_.reads_ahead()) { // read-ahead is always of on_disk_'s first blocks
        Block* b = pool_.take_first_read();
        pool_.give_back(head_);
        head_ = b;
      } else {
        head_->read(id)->wait(); // same disk queue as its write: sees the written data
      }
      on_disk_.pop_front();
      bm_.free(id);
      head_pos_ = 0;
      head_end_ = block_elements;
      read_ahead();
    } else if (tail_count_ > 0) {
      std::swap(head_, tail_); // short queue: no I/O at all
      head_pos_ = 0;
      head_end_ = tail_count_;
      tail_count_ = 0;
    } else {
      throw std::out_of_range(std::string("flow: ") + what + " on an empty external queue");
    }
  }

  void read_ahead() {
    while (pool_.reads_ahead() < max_reads_ && pool_.reads_ahead() < on_disk_.size() &&
           pool_.has_free()) {
      pool_.read_ahead(pool_.take(), on_disk_[pool_.reads_ahead()]);
    }
  }

  mng::block_manager& bm_;
  mng::allocation_strategy strategy_;
  detail::block_pool<Block> pool_;
  Block* head_ = nullptr;
  Block* tail_ = nullptr;
  std::size_t head_pos_ = 0, head_end_ = 0; // unread elements of head_
  std::size_t tail_count_ = 0;
  std::deque<mng::block_id> on_disk_; // full blocks, oldest first
  std::uint64_t blocks_written_ = 0;
  std::size_t max_reads_ = 1;
};

} // namespace flow::containers
