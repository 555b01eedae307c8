#pragma once
// Queued writing of blocks with a pool of write buffers: the caller fills a free buffer,
// hands it to write(), and continues while the disk writes it; only when every buffer is
// in flight does get_free_block() wait (for whichever write finishes first).
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "flow/io/request.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/sized_block.hpp"

namespace flow::mng {

template <class Block> class buffered_writer {
public:
  /// Allocates `buffers` (>= 1) blocks of `block_bytes` (a sized_block's size; a
  /// typed_block has its own): the writer's whole memory.
  explicit buffered_writer(std::size_t buffers, std::size_t block_bytes = 0) {
    if (buffers == 0) throw std::invalid_argument("flow: a buffered writer needs >= 1 buffer");
    owned_.reserve(buffers);
    for (std::size_t i = 0; i < buffers; ++i) {
      owned_.emplace_back(new_block<Block>(block_bytes));
      free_.push_back(owned_.back().get());
    }
  }
  /// Waits for the writes still in flight. Their errors are dropped here: call flush()
  /// first to see them.
  ~buffered_writer() {
    for (auto& r : in_flight_requests_) io::wait_quietly(r);
  }
  buffered_writer(const buffered_writer&) = delete;
  buffered_writer& operator=(const buffered_writer&) = delete;

  /// A buffer to fill; waits if all are being written. Rethrows the error of a failed
  /// write (the buffer of that write is free again).
  Block* get_free_block() {
    if (free_.empty()) reclaim_one();
    Block* b = free_.back();
    free_.pop_back();
    return b;
  }

  /// Starts writing `block` (from get_free_block) to `id`; the buffer returns to the pool
  /// when the write is done.
  void write(Block* block, const block_id& id) {
    io::request_ptr r = block->write(id);
    in_flight_blocks_.push_back(block);
    in_flight_requests_.push_back(std::move(r));
  }

  /// Gives back a buffer from get_free_block without writing it.
  void release(Block* block) { free_.push_back(block); }

  /// Waits for every write; rethrows the first failure.
  void flush() {
    while (!in_flight_requests_.empty()) reclaim_one();
  }

  std::size_t buffers() const noexcept { return owned_.size(); }
  std::size_t in_flight() const noexcept { return in_flight_requests_.size(); }

private:
  void reclaim_one() {
    if (in_flight_requests_.empty()) {
      throw std::logic_error("flow: buffered_writer: every buffer is held by the caller");
    }
    const std::size_t i = io::wait_any(in_flight_requests_);
    io::request_ptr r = std::move(in_flight_requests_[i]);
    free_.push_back(in_flight_blocks_[i]);
    in_flight_requests_.erase(in_flight_requests_.begin() + static_cast<std::ptrdiff_t>(i));
    in_flight_blocks_.erase(in_flight_blocks_.begin() + static_cast<std::ptrdiff_t>(i));
    r->wait(); // finished already: only rethrows its error
  }

  std::vector<std::unique_ptr<Block>> owned_;
  std::vector<Block*> free_;
  std::vector<Block*> in_flight_blocks_; // parallel to in_flight_requests_
  std::vector<io::request_ptr> in_flight_requests_;
};

} // namespace flow::mng
