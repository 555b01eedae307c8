#pragma once
// Reading a block_sequence element by element with prefetching. The per-element calls
// (empty, *, ++) are inline pointer operations; the block change is out of line.
// batch() exposes the rest of the current block for loops that take many at once.
//
//   block_istream<Block> in(seq, 4);
//   for (; !in.empty(); ++in) use(*in);
#include <cstddef>
#include <cstdint>
#include <span>

#include "flow/mng/block_sequence.hpp"
#include "flow/mng/prefetcher.hpp"
#include "flow/pull.hpp"

namespace flow::mng {

template <class Block>
class block_istream : public pull_from_span<block_istream<Block>, typename Block::value_type> {
public:
  using value_type = typename Block::value_type;

  /// Reads `seq` with `buffers` (>= 1; 2 or more overlap reading with computing)
  /// buffers. If `free_to` is given, each block is returned to that block manager as
  /// soon as it has been read (consuming a run frees its space). Blocks until the first
  /// block is in memory. `block_bytes`: the size of a sized_block (a typed_block has
  /// its own). `last_block_bytes`: the written part of the last block (0: all of it).
  block_istream(const block_sequence& seq, std::size_t buffers, block_manager* free_to = nullptr,
                std::size_t block_bytes = 0, std::size_t last_block_bytes = 0)
      : prefetcher_(seq.blocks, buffers, block_bytes, last_block_bytes), remaining_(seq.size), free_to_(free_to),
        blocks_(seq.blocks) {
    if (!free_to_) blocks_.clear(); // only kept to free them
    refill();
  }
  ~block_istream() {
    if (current_) prefetcher_.give_back(current_);
    if (free_to_) { // blocks not read yet are freed too: the sequence is consumed
      for (std::size_t i = freed_; i < blocks_.size(); ++i) free_to_->free(blocks_[i]);
    }
  }
  block_istream(const block_istream&) = delete;
  block_istream& operator=(const block_istream&) = delete;

  /// Elements not yet consumed.
  std::uint64_t remaining() const noexcept {
    return remaining_ + static_cast<std::uint64_t>(end_ - pos_);
  }

private:
  friend pull_from_span<block_istream, value_type>;
  using pull_from_span<block_istream, value_type>::pos_; // the rest of the current block
  using pull_from_span<block_istream, value_type>::end_;

  /// The next block (pull_from_span calls it when the current one runs out).
  void refill() {
    if (current_) {
      prefetcher_.give_back(current_);
      current_ = nullptr;
      if (free_to_) free_to_->free(blocks_[freed_++]);
    }
    pos_ = end_ = nullptr;
    if (remaining_ == 0 || prefetcher_.empty()) return;
    current_ = prefetcher_.pull();
    const std::size_t n = remaining_ < current_->elements() ? static_cast<std::size_t>(remaining_) : current_->elements();
    remaining_ -= n;
    pos_ = current_->begin();
    end_ = pos_ + n;
  }

  block_prefetcher<Block> prefetcher_;
  std::uint64_t remaining_; // elements in blocks not yet pulled
  block_manager* free_to_;
  std::vector<block_id> blocks_;
  std::size_t freed_ = 0;
  Block* current_ = nullptr;
};

} // namespace flow::mng
