#pragma once
// Reading ahead along a known sequence of blocks (a scan, or the sorter's prediction
// sequence: the order in which a merge will need its runs' blocks) with a pool of
// buffers. Reads are issued in sequence order as soon as a buffer is free, so with P
// buffers up to P blocks are in flight or ready while the caller computes.
//
//   block_prefetcher<Block> pf(sequence, 4);
//   while (!pf.empty()) { Block* b = pf.pull(); use(*b); pf.give_back(b); }
//
// The caller may hold several pulled blocks at once (a merger holds one per run) and
// give them back in any order; it must give one back before pulling when it holds every
// buffer (pull() throws std::logic_error rather than deadlock).
#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

#include "flow/io/request.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/sized_block.hpp"

namespace flow::mng {

template <class Block> class block_prefetcher {
public:
  /// Starts reading the first `buffers` (>= 1) blocks of `sequence` at once. Memory:
  /// min(buffers, sequence length) blocks of `block_bytes` (a sized_block's size; a
  /// typed_block has its own). `last_block_bytes` (a multiple of 4096; 0: the whole
  /// block): the part of the sequence's last block that was written and is read.
  block_prefetcher(std::vector<block_id> sequence, std::size_t buffers, std::size_t block_bytes = 0,
                   std::size_t last_block_bytes = 0)
      : sequence_(std::move(sequence)), last_block_bytes_(last_block_bytes) {
    if (buffers == 0) throw std::invalid_argument("flow: a prefetcher needs >= 1 buffer");
    const std::size_t n = std::min(buffers, sequence_.size()); // none for nothing to read
    owned_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      owned_.emplace_back(new_block<Block>(block_bytes));
      free_.push_back(owned_.back().get());
    }
    issue();
  }
  /// Waits for reads still in flight (their errors are dropped: nobody asked for them).
  ~block_prefetcher() {
    for (auto& f : in_flight_) io::wait_quietly(f.request);
  }
  block_prefetcher(const block_prefetcher&) = delete;
  block_prefetcher& operator=(const block_prefetcher&) = delete;

  /// True when every block of the sequence has been pulled.
  bool empty() const noexcept { return next_pull_ == sequence_.size(); }
  std::size_t remaining() const noexcept { return sequence_.size() - next_pull_; }
  std::size_t buffers() const noexcept { return owned_.size(); }
  /// Index in the sequence of the block the next pull() returns.
  std::size_t next_index() const noexcept { return next_pull_; }

  /// The next block of the sequence, waiting for its read (counted as I/O wait). The
  /// caller owns the buffer until give_back(). Rethrows a failed read.
  Block* pull() {
    if (empty()) throw std::logic_error("flow: block_prefetcher::pull past the sequence end");
    if (in_flight_.empty()) {
      issue();
      if (in_flight_.empty()) {
        throw std::logic_error("flow: block_prefetcher::pull while the caller holds every "
                               "buffer; give_back() one first or use more buffers");
      }
    }
    pending f = std::move(in_flight_.front());
    in_flight_.pop_front();
    ++next_pull_;
    try {
      f.request->wait();
    } catch (...) {
      give_back(f.block);
      throw;
    }
    return f.block;
  }

  /// Returns a buffer; it immediately starts the read of the next unrequested block.
  void give_back(Block* block) {
    free_.push_back(block);
    issue();
  }

private:
  struct pending {
    Block* block;
    io::request_ptr request;
  };

  void issue() {
    while (!free_.empty() && next_issue_ < sequence_.size()) {
      Block* b = free_.back();
      free_.pop_back();
      try {
        const block_id& id = sequence_[next_issue_];
        const bool part = last_block_bytes_ != 0 && next_issue_ + 1 == sequence_.size();
        in_flight_.push_back(pending{b, part ? b->read_first(id, last_block_bytes_) : b->read(id)});
      } catch (...) {
        free_.push_back(b); // e.g. closed_file_error at submission
        throw;
      }
      ++next_issue_;
    }
  }

  std::vector<block_id> sequence_;
  std::size_t last_block_bytes_;
  std::vector<std::unique_ptr<Block>> owned_;
  std::vector<Block*> free_;
  std::deque<pending> in_flight_; // in sequence order
  std::size_t next_issue_ = 0;
  std::size_t next_pull_ = 0;
};

} // namespace flow::mng
