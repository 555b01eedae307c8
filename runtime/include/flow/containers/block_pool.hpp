#pragma once
// The buffers of a stack or queue: a fixed set of blocks, each either free, held by the
// container, being written (write behind) or being read ahead. Owning all of them in one
// place is what lets the container pass buffers around by pointer (no copies) and still
// never exceed its memory budget.
#include <cstddef>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "flow/io/request.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/block_manager.hpp"

namespace flow::containers::detail {

template <class Block> class block_pool {
public:
  /// The blocks a budget of `memory_bytes` buys a stack or queue (`container` names it in
  /// the error): at least 3, two held by the container and one to write behind.
  static std::size_t blocks_for(std::size_t memory_bytes, const char* container) {
    const std::size_t n = memory_bytes / Block::raw_size;
    if (n < 3) {
      throw std::invalid_argument(std::string("flow: an external ") + container + " of " +
                                  std::to_string(Block::raw_size) +
                                  "-byte blocks needs a memory budget of at least 3 blocks (" +
                                  std::to_string(3 * Block::raw_size) + " bytes), got " +
                                  std::to_string(memory_bytes));
    }
    return n;
  }

  explicit block_pool(std::size_t blocks) {
    owned_.reserve(blocks);
    for (std::size_t i = 0; i < blocks; ++i) {
      owned_.emplace_back(new Block);
      free_.push_back(owned_.back().get());
    }
  }
  /// Waits for everything in flight (errors dropped: the container is going away).
  ~block_pool() {
    for (auto& w : writes_) io::wait_quietly(w.request);
    for (auto& r : reads_) io::wait_quietly(r.request);
  }
  block_pool(const block_pool&) = delete;
  block_pool& operator=(const block_pool&) = delete;

  std::size_t size() const noexcept { return owned_.size(); }
  /// How many reads ahead a container holding two blocks may keep: all the others but one
  /// spare buffer for writing (at least one).
  std::size_t max_reads_ahead() const noexcept { return size() - 2 > 1 ? size() - 3 : 1; }

  /// The container's end: drops the reads ahead and waits for the writes (errors dropped:
  /// the container is going away). The container frees its disk blocks after this.
  void close() noexcept {
    drop_reads();
    try {
      flush_writes();
    } catch (...) {
    }
  }

  /// A free buffer: if none, waits for the oldest write; if no write is in flight, drops
  /// the newest read-ahead (after its read finished). Rethrows a failed write.
  Block* take() {
    if (free_.empty()) {
      if (!writes_.empty()) {
        io_op w = std::move(writes_.front());
        writes_.pop_front();
        free_.push_back(w.block);
        w.request->wait();
      } else if (!reads_.empty()) {
        io_op r = std::move(reads_.back());
        reads_.pop_back();
        free_.push_back(r.block);
        io::wait_quietly(r.request); // its data is not needed any more
      }
    }
    Block* b = free_.back();
    free_.pop_back();
    return b;
  }
  void give_back(Block* b) { free_.push_back(b); }
  bool has_free() const noexcept { return !free_.empty(); }

  /// Starts writing `b` (taken from this pool) to `id`; b is free again afterwards.
  void write(Block* b, const mng::block_id& id) { writes_.push_back({b, b->write(id), id}); }
  /// Writes the full block `b` behind to a new disk block (the `index`-th of `strategy`
  /// on `bm`) and takes a free buffer in its place: the new block's id and the buffer.
  /// If no buffer can be taken the new block is freed again and nothing is written.
  std::pair<mng::block_id, Block*> write_behind(Block* b, mng::block_manager& bm,
                                                mng::allocation_strategy& strategy, std::size_t index) {
    const mng::block_id id = bm.allocate(Block::raw_size, strategy, index);
    Block* fresh = nullptr;
    try {
      fresh = take();
    } catch (...) {
      bm.free(id);
      throw;
    }
    write(b, id);
    return {id, fresh};
  }
  /// Waits for all writes; rethrows the first failure.
  void flush_writes() {
    while (!writes_.empty()) {
      io_op w = std::move(writes_.front());
      writes_.pop_front();
      free_.push_back(w.block);
      w.request->wait();
    }
  }

  // Read-ahead queue, in the order the container will need the blocks.
  void read_ahead(Block* b, const mng::block_id& id) { reads_.push_back({b, b->read(id), id}); }
  std::size_t reads_ahead() const noexcept { return reads_.size(); }
  const mng::block_id& first_read_id() const { return reads_.front().id; }
  /// The first read-ahead block, after its read finished (rethrows a failed read).
  Block* take_first_read() {
    io_op r = std::move(reads_.front());
    reads_.pop_front();
    try {
      r.request->wait();
    } catch (...) {
      free_.push_back(r.block);
      throw;
    }
    return r.block;
  }
  /// Drops every read-ahead (e.g. when the order the container needs changed).
  void drop_reads() {
    while (!reads_.empty()) {
      free_.push_back(reads_.back().block);
      io::wait_quietly(reads_.back().request);
      reads_.pop_back();
    }
  }

private:
  struct io_op {
    Block* block;
    io::request_ptr request;
    mng::block_id id;
  };
  std::vector<std::unique_ptr<Block>> owned_;
  std::vector<Block*> free_;
  std::deque<io_op> writes_;
  std::deque<io_op> reads_;
};

} // namespace flow::containers::detail
