#pragma once
// Sorted runs on disk: what run formation produces and merging consumes. A run is a
// sorted sequence of elements in whole blocks (the last one padded with zeros), stored
// consecutively in one extent of one disk, plus the first element of every block, from
// which the merger builds its prediction sequence (so a run's metadata is one element
// per block). A `sorted_runs` owns its blocks (they are freed when it is destroyed, or
// block by block as a merger consumes them) and, for inputs that fit in memory, holds
// the sorted elements in a memory buffer instead.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "flow/algo/parallel.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/request.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/sort_model.hpp"

namespace flow::algo {

/// Options shared by run formation, merging and the sorter. The defaults suit a program:
/// the global block manager, blocks sized from the memory budget, all hardware threads.
struct sort_options {
  mng::block_manager* block_manager = nullptr; ///< nullptr: block_manager::global()
  std::size_t block_bytes = 0; ///< 0: chosen from the budget (at most 2 MiB); else rounded
                               ///< down to a multiple of lcm(sizeof(T), 4096)
  unsigned threads = 0;        ///< 0: default_threads()
  std::uint64_t seed = 1;      ///< of the randomized block allocation
  thread_team* team = nullptr; ///< share a team instead of starting threads (optional)
  /// Run formation keeps the last (partial) run sorted in memory instead of writing it;
  /// the sorted_runs then hold it, and a merger with about the same budget merges it
  /// from memory (or writes it first if its budget is too small). For a sorter, which
  /// merges right after with the same budget (the sorter sets it); a plain runs_creator
  /// whose runs wait for a later phase should not hold memory in between.
  bool keep_last_run = false;

  mng::block_manager& bm() const {
    return block_manager ? *block_manager : mng::block_manager::global();
  }
  unsigned thread_count() const { return team ? team->size() : (threads ? threads : default_threads()); }
};

/// Where a sorter's time went (seconds; each part measured on the thread doing it). For
/// benchmarks and for a program's --stats report.
struct sort_timings {
  double fill_wait = 0;  ///< input side blocked waiting for a free run buffer
  double run_sort = 0;   ///< sorting runs in memory (all threads of the team)
  double scratch_wait = 0; ///< run sorting blocked waiting for a scratch buffer
  double write_wait = 0; ///< run writing blocked waiting for a write buffer
  double read_wait = 0;  ///< merging blocked waiting for a block read
  double merge = 0;      ///< merging batches (all threads of the team)
  double intermediate = 0; ///< intermediate merge passes, in total
};

namespace detail {
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
} // namespace detail

/// Block size and elements per block: a multiple of both sizeof(T) and 4096, so blocks
/// hold whole elements with no padding and a sorted array can be written in place.
using block_geometry = plan::sort_geometry;
using plan::max_default_block_bytes;

template <class T> block_geometry choose_geometry(std::size_t memory_bytes, std::size_t requested) {
  return plan::sort_block({.element_bytes = sizeof(T), .block_bytes = requested}, memory_bytes);
}

/// One sorted run on disk.
template <class T> struct run_info {
  mng::block_id extent;   ///< all blocks of the run, consecutive
  std::vector<T> firsts;  ///< first element of each block
  std::uint64_t size = 0; ///< elements
  std::size_t freed = 0;  ///< leading blocks already returned to the block manager

  std::size_t block_count() const noexcept { return firsts.size(); }
  mng::block_id block(std::size_t b, std::size_t block_bytes) const noexcept {
    return {extent.storage, extent.offset + b * block_bytes, block_bytes};
  }
  /// Returns the blocks not freed yet.
  void release(mng::block_manager& bm, std::size_t block_bytes) noexcept {
    if (extent.valid() && freed < block_count()) {
      try {
        bm.free(mng::block_id{extent.storage, extent.offset + freed * block_bytes,
                              (block_count() - freed) * block_bytes});
      } catch (...) {
      }
    }
    freed = block_count();
  }
  std::size_t metadata_bytes() const noexcept { return firsts.capacity() * sizeof(T); }
};
static_assert(sizeof(run_info<int>) == plan::run_info_bytes, "the sort model counts run descriptions of this size");

/// The output of run formation, the input of merging.
template <class T> class sorted_runs {
public:
  sorted_runs() = default;
  sorted_runs(sorted_runs&& o) noexcept { *this = std::move(o); }
  sorted_runs& operator=(sorted_runs&& o) noexcept {
    if (this != &o) {
      release();
      bm_ = std::exchange(o.bm_, nullptr);
      geometry_ = o.geometry_;
      runs_ = std::move(o.runs_);
      o.runs_.clear();
      memory_ = std::move(o.memory_);
      o.memory_.clear();
    }
    return *this;
  }
  ~sorted_runs() { release(); }

  /// Elements in all runs (or in memory).
  std::uint64_t size() const noexcept {
    std::uint64_t n = 0;
    for (const auto& m : memory_) n += m.size;
    for (const auto& r : runs_) n += r.size;
    return n;
  }
  bool empty() const noexcept { return size() == 0; }
  /// True when the input fit in memory: no run was written.
  bool in_memory() const noexcept { return runs_.empty(); }
  /// Bytes of the sorted sequences held in memory.
  std::size_t memory_bytes() const noexcept {
    std::size_t b = 0;
    for (const auto& m : memory_) b += m.buffer.size();
    return b;
  }
  /// Drops the in-memory sequences (after they were written out as runs).
  void clear_memory() noexcept { memory_.clear(); }
  std::size_t run_count() const noexcept { return runs_.size(); }
  const block_geometry& geometry() const noexcept { return geometry_; }
  const std::vector<run_info<T>>& runs() const noexcept { return runs_; }
  /// The sorted sequences of an in-memory result (at most two; merged by the merger).
  std::vector<std::span<const T>> memory_sequences() const {
    std::vector<std::span<const T>> v;
    for (const auto& m : memory_) v.emplace_back(m.data, m.size);
    return v;
  }

  /// Heap bytes of the runs' metadata (block ids and first elements).
  std::size_t metadata_bytes() const noexcept {
    std::size_t b = runs_.capacity() * sizeof(run_info<T>);
    for (const auto& r : runs_) b += r.metadata_bytes();
    return b;
  }

  /// Frees every block and the memory buffer.
  void release() noexcept {
    if (bm_) {
      for (auto& r : runs_) r.release(*bm_, geometry_.bytes);
    }
    runs_.clear();
    memory_.clear();
  }

  // --- for run formation and merging -------------------------------------------------
  void set_block_manager(mng::block_manager* bm) noexcept { bm_ = bm; }
  mng::block_manager* block_manager() const noexcept { return bm_; }
  void set_geometry(const block_geometry& g) noexcept { geometry_ = g; }
  std::vector<run_info<T>>& mutable_runs() noexcept { return runs_; }
  /// The in-memory sequence i, writable, and shortening it to n elements (a combining
  /// merger folds a sequence in place).
  std::span<T> mutable_memory_sequence(std::size_t i) noexcept {
    return {const_cast<T*>(memory_[i].data), memory_[i].size};
  }
  void shrink_memory_sequence(std::size_t i, std::size_t n) noexcept { memory_[i].size = n; }
  /// Adds a sorted sequence held in memory (in `buffer`, which the runs now own).
  void add_memory(io::aligned_buffer buffer, const T* data, std::size_t n) {
    memory_.push_back({std::move(buffer), data, n});
  }

private:
  mng::block_manager* bm_ = nullptr;
  block_geometry geometry_{};
  std::vector<run_info<T>> runs_;
  struct in_memory_sequence {
    io::aligned_buffer buffer;
    const T* data;
    std::size_t size;
  };
  std::vector<in_memory_sequence> memory_;
};

namespace detail {

/// Writes a sorted array as a run, in place: the array's blocks go to disk straight from
/// it (it must stay untouched until the returned requests finished). `data` must have
/// room for n rounded up to whole blocks; the tail of the last block is zeroed.
template <class T>
std::vector<io::request_ptr> write_run_in_place(T* data, std::size_t n, const block_geometry& g,
                                                mng::block_manager& bm,
                                                mng::allocation_strategy& strategy,
                                                std::size_t run_index, run_info<T>& run) {
  const std::size_t blocks = (n + g.elements - 1) / g.elements;
  const std::size_t padded = blocks * g.elements;
  if (padded > n) {
    std::memset(static_cast<void*>(data + n), 0, (padded - n) * sizeof(T));
  }
  run.size = n;
  run.firsts.reserve(blocks);
  for (std::size_t b = 0; b < blocks; ++b) run.firsts.push_back(data[b * g.elements]);
  run.extent = bm.allocate(blocks * g.bytes, strategy, run_index);
  std::vector<io::request_ptr> requests;
  requests.reserve(blocks);
  try {
    for (std::size_t b = 0; b < blocks; ++b) {
      const mng::block_id id = run.block(b, g.bytes);
      requests.push_back(id.storage->file().awrite(data + b * g.elements, id.offset, g.bytes));
    }
  } catch (...) {
    for (auto& r : requests) io::wait_quietly(r);
    run.release(bm, g.bytes);
    throw;
  }
  return requests;
}

/// Writes a run of a known number of elements batch by batch through a few block
/// buffers (write behind): the intermediate merge passes' output.
template <class T> class run_writer {
public:
  run_writer(std::uint64_t elements, const block_geometry& g, std::size_t buffers,
             mng::block_manager& bm, mng::allocation_strategy& strategy, std::size_t run_index)
      : g_(g), bm_(bm), memory_(g.bytes * buffers), buffers_(buffers), requests_(buffers) {
    blocks_ = static_cast<std::size_t>((elements + g.elements - 1) / g.elements);
    run_.firsts.reserve(blocks_);
    if (blocks_) run_.extent = bm.allocate(blocks_ * g.bytes, strategy, run_index);
  }
  ~run_writer() {
    for (auto& r : requests_) io::wait_quietly(r);
    if (!finished_ && run_.extent.valid()) {
      try {
        bm_.free(mng::block_id{run_.extent.storage, run_.extent.offset, blocks_ * g_.bytes});
      } catch (...) {
      }
    }
  }
  run_writer(const run_writer&) = delete;
  run_writer& operator=(const run_writer&) = delete;

  void push(std::span<const T> items) {
    while (!items.empty()) {
      if (fill_ == g_.elements) flush_current();
      const std::size_t n = std::min(items.size(), g_.elements - fill_);
      std::memcpy(static_cast<void*>(buffer(current_) + fill_), items.data(), n * sizeof(T));
      fill_ += n;
      items = items.subspan(n);
    }
  }

  /// Ends the run. A run of fewer elements than announced (a combining merge folds some)
  /// returns its unused blocks.
  run_info<T> finish() {
    if (fill_ > 0) flush_current();
    for (auto& r : requests_) {
      if (r) r->wait();
      r = nullptr;
    }
    if (const std::size_t used = run_.firsts.size(); used < blocks_) {
      bm_.free(mng::block_id{run_.extent.storage, run_.extent.offset + used * g_.bytes, (blocks_ - used) * g_.bytes});
      run_.extent.bytes = used * g_.bytes;
      if (used == 0) run_.extent = {};
    }
    finished_ = true;
    return std::move(run_);
  }

private:
  T* buffer(std::size_t i) { return reinterpret_cast<T*>(memory_.data() + i * g_.bytes); }

  void flush_current() {
    T* b = buffer(current_);
    if (fill_ < g_.elements) {
      std::memset(static_cast<void*>(b + fill_), 0, (g_.elements - fill_) * sizeof(T));
    }
    if (run_.firsts.size() == blocks_) {
      throw std::logic_error("flow: run_writer: more elements than announced");
    }
    const mng::block_id id = run_.block(run_.firsts.size(), g_.bytes);
    run_.firsts.push_back(b[0]);
    run_.size += fill_;
    requests_[current_] = id.storage->file().awrite(b, id.offset, g_.bytes);
    current_ = (current_ + 1) % buffers_;
    fill_ = 0;
    if (requests_[current_]) {
      io::request_ptr r = std::move(requests_[current_]);
      requests_[current_] = nullptr;
      r->wait();
    }
  }

  block_geometry g_;
  mng::block_manager& bm_;
  io::aligned_buffer memory_;
  std::size_t buffers_;
  std::vector<io::request_ptr> requests_;
  std::size_t current_ = 0;
  std::size_t fill_ = 0;
  run_info<T> run_;
  std::size_t blocks_ = 0;
  bool finished_ = false;
};

} // namespace detail
} // namespace flow::algo
