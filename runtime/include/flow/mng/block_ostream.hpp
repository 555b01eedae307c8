#pragma once
// Writing a sequence of elements into new blocks, with queued writing: push() stores an
// element (inlined); a full block goes to the buffered writer and the next element goes
// into a fresh buffer. finish() yields the block_sequence to read back later.
//
//   block_ostream<typed_block<1 << 20, u64>> out(bm, 4);
//   for (...) out.push(x);
//   block_sequence seq = out.finish();
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/block_sequence.hpp"
#include "flow/mng/buffered_writer.hpp"

namespace flow::mng {

template <class Block> class block_ostream {
public:
  using value_type = typename Block::value_type;

  /// Memory: `buffers` (>= 1; 2 or more overlap writing with computing) blocks.
  block_ostream(block_manager& bm, std::size_t buffers,
                allocation_strategy strategy = allocation_strategy::striping())
      : bm_(bm), strategy_(std::move(strategy)), writer_(buffers) {}

  /// A stream that was not finished (e.g. an exception unwinds) frees its blocks, so an
  /// abandoned sequence leaves no allocated space behind.
  ~block_ostream() {
    if (finished_) return;
    try {
      writer_.flush();
    } catch (...) {
    }
    if (current_) writer_.release(current_);
    bm_.free(sequence_.blocks);
  }
  block_ostream(const block_ostream&) = delete;
  block_ostream& operator=(const block_ostream&) = delete;

  void push(const value_type& v) {
    if (pos_ == end_) start_block();
    *pos_++ = v; // the count is derived from pos_: no second store per element
  }
  block_ostream& operator<<(const value_type& v) {
    push(v);
    return *this;
  }

  /// Elements pushed so far.
  std::uint64_t size() const noexcept {
    return sequence_.blocks.empty()
               ? 0
               : (sequence_.blocks.size() - 1) * Block::size +
                     static_cast<std::uint64_t>(pos_ - current_begin_);
  }

  /// Writes the last (partial) block, waits for all writes (rethrowing a failure) and
  /// returns the sequence; the caller now owns its blocks. Call once.
  block_sequence finish() {
    if (finished_) throw std::logic_error("flow: block_ostream::finish called twice");
    sequence_.size = size();
    if (current_) {
      // Zero the unused tail: no uninitialised memory is ever written to disk.
      std::memset(static_cast<void*>(pos_), 0,
                  static_cast<std::size_t>(reinterpret_cast<std::byte*>(current_->end()) -
                                           reinterpret_cast<std::byte*>(pos_)));
      if (pos_ != current_->begin()) {
        writer_.write(current_, sequence_.blocks.back());
      } else {
        writer_.release(current_);
      }
      current_ = nullptr;
    }
    writer_.flush();
    finished_ = true;
    return std::move(sequence_);
  }

private:
  // Out of the per-element path: once per block.
  void start_block() {
    if (current_) writer_.write(current_, sequence_.blocks.back());
    current_ = nullptr;
    block_id id = bm_.allocate(Block::raw_size, strategy_, sequence_.blocks.size());
    sequence_.blocks.push_back(id);
    current_ = writer_.get_free_block();
    pos_ = current_begin_ = current_->begin();
    end_ = current_->end();
  }

  block_manager& bm_;
  allocation_strategy strategy_;
  buffered_writer<Block> writer_;
  block_sequence sequence_;
  Block* current_ = nullptr;
  value_type* current_begin_ = nullptr;
  value_type* pos_ = nullptr;
  value_type* end_ = nullptr;
  bool finished_ = false;
};

} // namespace flow::mng
