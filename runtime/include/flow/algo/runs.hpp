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
#include <new>
#include <numeric>
#include <optional>
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
  /// The budget of the merge that will take run formation's runs (0: run formation's
  /// own, as a sorter's). Run formation leaves no more runs than that merge takes.
  std::size_t merge_bytes = 0;
  /// A hash reduce (flow/stream/reduce.hpp) inserts on the calling thread instead of in
  /// rounds on the team's threads: its input comes from a stretch whose batches keep
  /// them busy (a third thread's wake-ups on two cores cost more than its inserts gain).
  /// Its spills still sort on all threads.
  bool inserts_on_caller = false;

  /// These options for run formation whose runs a merge within `bytes` takes.
  sort_options merged_within(std::size_t bytes) const {
    sort_options o = *this;
    o.merge_bytes = bytes;
    return o;
  }
  /// These options for a hash reduce that inserts on the calling thread.
  sort_options inserting_on_caller() const {
    sort_options o = *this;
    o.inserts_on_caller = true;
    return o;
  }
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

/// The first elements of a run's blocks: in memory (an array of exactly the blocks
/// reserved), or packed in 4 KiB pages on disk once spilled (a sort that got far more
/// data than its plan counted, whose metadata outgrew its reserve); the merger reads
/// spilled ones back a page at a time (detail::firsts_cursor). 24 bytes, as a vector, so
/// that a run's description stays as small as the sort model counts.
template <class T> class block_firsts {
public:
  block_firsts() = default;
  block_firsts(block_firsts&& o) noexcept { *this = std::move(o); }
  block_firsts& operator=(block_firsts&& o) noexcept {
    if (this != &o) {
      free_memory();
      data_ = std::exchange(o.data_, nullptr);
      count_or_offset_ = std::exchange(o.count_or_offset_, 0);
      disk_ = std::exchange(o.disk_, nullptr);
    }
    return *this;
  }
  ~block_firsts() { free_memory(); }

  /// Room for `blocks` firsts in memory (once, before the first push_back).
  void reserve(std::size_t blocks) {
    if (blocks) data_ = static_cast<T*>(::operator new(blocks * sizeof(T), std::align_val_t{alignof(T)}));
  }
  void push_back(const T& x) noexcept { data_[count_or_offset_++] = x; }
  /// Firsts held in memory (0 once spilled).
  std::size_t size() const noexcept { return disk_ ? 0 : static_cast<std::size_t>(count_or_offset_); }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size(); }

  /// Whether they are on disk, and where (the pages of `blocks` firsts).
  bool spilled() const noexcept { return disk_ != nullptr; }
  mng::block_id pages(std::size_t blocks) const noexcept { return {disk_, count_or_offset_, page_bytes(blocks)}; }
  /// Bytes of the pages that hold `blocks` packed firsts (at least one page).
  static std::uint64_t page_bytes(std::size_t blocks) {
    const std::uint64_t bytes = std::uint64_t{blocks} * sizeof(T);
    return std::max<std::uint64_t>(1, (bytes + 4095) / 4096) * 4096;
  }
  /// They are on disk at `where` now: the memory is given back.
  void moved_to(const mng::block_id& where) noexcept {
    free_memory();
    disk_ = where.storage;
    count_or_offset_ = where.offset;
  }
  /// Their pages were freed: none are left.
  void forget_pages() noexcept {
    disk_ = nullptr;
    count_or_offset_ = 0;
  }

private:
  void free_memory() noexcept {
    if (data_) ::operator delete(data_, std::align_val_t{alignof(T)});
    data_ = nullptr;
    if (!disk_) count_or_offset_ = 0;
  }

  T* data_ = nullptr;
  std::uint64_t count_or_offset_ = 0; // in memory: the firsts pushed; on disk: the pages' offset
  mng::disk* disk_ = nullptr;         // on disk: where
};

/// One sorted run on disk.
template <class T> struct run_info {
  mng::block_id extent;    ///< all blocks of the run, consecutive
  block_firsts<T> firsts;  ///< first element of each block (in memory or spilled)
  std::uint64_t size = 0;  ///< elements
  std::uint32_t freed = 0; ///< leading blocks already returned to the block manager
  std::uint32_t blocks = 0; ///< blocks of the run

  std::size_t block_count() const noexcept { return blocks; }
  mng::block_id block(std::size_t b, std::size_t block_bytes) const noexcept {
    return {extent.storage, extent.offset + b * block_bytes, block_bytes};
  }
  /// Returns the blocks not freed yet, and the spilled firsts.
  void release(mng::block_manager& bm, std::size_t block_bytes) noexcept {
    if (extent.valid() && freed < block_count()) {
      try {
        bm.free(mng::block_id{extent.storage, extent.offset + freed * block_bytes,
                              (block_count() - freed) * block_bytes});
      } catch (...) {
      }
    }
    freed = blocks;
    release_spilled(bm);
  }
  void release_spilled(mng::block_manager& bm) noexcept {
    if (!firsts.spilled()) return;
    try {
      bm.free(firsts.pages(blocks));
    } catch (...) {
    }
    firsts.forget_pages();
  }
  std::size_t metadata_bytes() const noexcept { return firsts.size() * sizeof(T); }
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
  /// The run list's capacity once a full list of `runs` grows: doubled, 16 at first
  /// (plan::run_list_bytes models it).
  static std::size_t grown_run_capacity(std::size_t runs) { return std::max<std::size_t>(16, 2 * runs); }
  /// Adds a finished run; a full list grows by grown_run_capacity.
  void add_run(run_info<T> run) {
    if (runs_.size() == runs_.capacity()) runs_.reserve(grown_run_capacity(runs_.size()));
    runs_.push_back(std::move(run));
  }
  /// Whether some run's first elements are on disk.
  bool firsts_spilled() const noexcept {
    return std::any_of(runs_.begin(), runs_.end(), [](const run_info<T>& r) { return r.firsts.spilled(); });
  }
  /// Moves every run's first elements to disk (detail::spill_firsts): a sort that got far
  /// more data than its plan counted, whose metadata outgrew its memory.
  void spill_firsts(mng::allocation_strategy& strategy, std::size_t& run_index);
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

/// Bytes of the page buffer a spilled run's firsts are written and read through.
inline constexpr std::size_t firsts_page_bytes = plan::firsts_page_bytes;

/// Writes a run's first elements to disk as they come (packed: an element may cross a
/// page), through one page: for a run whose firsts do not stay in memory. finish() puts
/// them in the run; pages not finished are freed.
template <class T> class firsts_writer {
public:
  firsts_writer(std::size_t blocks, mng::block_manager& bm, mng::allocation_strategy& strategy,
                std::size_t run_index)
      : bm_(bm), pages_(bm.allocate(block_firsts<T>::page_bytes(blocks), strategy, run_index)),
        page_(firsts_page_bytes) {}
  ~firsts_writer() {
    if (pages_.valid()) {
      try {
        bm_.free(pages_);
      } catch (...) {
      }
    }
  }
  firsts_writer(const firsts_writer&) = delete;
  firsts_writer& operator=(const firsts_writer&) = delete;

  void push(const T& x) {
    const auto* from = reinterpret_cast<const std::byte*>(&x);
    for (std::size_t left = sizeof(T); left > 0;) {
      const std::size_t n = std::min(left, firsts_page_bytes - fill_);
      std::memcpy(page_.data() + fill_, from, n);
      from += n;
      left -= n;
      if ((fill_ += n) == firsts_page_bytes) flush();
    }
  }
  /// Writes the last, partial page; the run's firsts are on disk from now on.
  void finish(run_info<T>& run) {
    if (fill_ > 0) flush();
    run.firsts.moved_to(pages_);
    pages_ = {};
  }

private:
  void flush() {
    std::memset(page_.data() + fill_, 0, firsts_page_bytes - fill_);
    pages_.storage->file().write(page_.data(), pages_.offset + written_, firsts_page_bytes);
    written_ += firsts_page_bytes;
    fill_ = 0;
  }

  mng::block_manager& bm_;
  mng::block_id pages_;
  io::aligned_buffer page_;
  std::size_t fill_ = 0;
  std::uint64_t written_ = 0;
};

/// Moves a run's first elements from memory to disk (and frees them in memory).
template <class T>
void spill_firsts(run_info<T>& run, mng::block_manager& bm, mng::allocation_strategy& strategy, std::size_t run_index) {
  if (run.firsts.spilled() || run.blocks == 0) return;
  firsts_writer<T> w(run.blocks, bm, strategy, run_index);
  for (const T& x : run.firsts) w.push(x);
  w.finish(run);
}

} // namespace detail

template <class T> void sorted_runs<T>::spill_firsts(mng::allocation_strategy& strategy, std::size_t& run_index) {
  for (auto& r : runs_) detail::spill_firsts(r, *bm_, strategy, run_index++);
}

namespace detail {

/// A run's first elements in order, from memory or, spilled, a page at a time from disk:
/// what the merger builds its prediction sequence from.
template <class T> class firsts_cursor {
public:
  explicit firsts_cursor(const run_info<T>& run) : run_(&run) {
    if (run.firsts.spilled()) page_ = io::aligned_buffer(buffer_bytes(run));
    load();
  }
  /// Memory a cursor over `run` holds besides itself (a spilled run's: a page and the
  /// current first element after it, so that a cursor over firsts in memory is small).
  static std::size_t buffer_bytes(const run_info<T>& run) {
    return run.firsts.spilled() ? firsts_page_bytes + sizeof(T) : 0;
  }

  bool done() const noexcept { return next_ >= run_->blocks; }
  std::size_t block() const noexcept { return next_; }
  /// The first element of block(): in the run's array, or (spilled) in the cursor until
  /// it advances.
  const T& first() const noexcept { return run_->firsts.spilled() ? current() : run_->firsts[next_]; }
  void advance() {
    ++next_;
    load();
  }

private:
  void load() {
    if (done() || !run_->firsts.spilled()) return;
    const mng::block_id pages = run_->firsts.pages(run_->blocks);
    std::byte* to = page_.data() + firsts_page_bytes;
    for (std::uint64_t at = std::uint64_t{next_} * sizeof(T), left = sizeof(T); left > 0;) {
      const std::uint64_t page = at / firsts_page_bytes;
      if (page != loaded_) {
        pages.storage->file().read(page_.data(), pages.offset + page * firsts_page_bytes, firsts_page_bytes);
        loaded_ = page;
      }
      const std::size_t in_page = at % firsts_page_bytes;
      const std::size_t n = std::min<std::uint64_t>(left, firsts_page_bytes - in_page);
      std::memcpy(to, page_.data() + in_page, n);
      to += n;
      at += n;
      left -= n;
    }
  }

  const T& current() const noexcept { return *reinterpret_cast<const T*>(page_.data() + firsts_page_bytes); }

  const run_info<T>* run_;
  io::aligned_buffer page_; // spilled: the page read last, then the current first element
  std::uint64_t loaded_ = ~std::uint64_t{0};
  std::size_t next_ = 0;
};

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
  run.blocks = static_cast<std::uint32_t>(blocks);
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
/// buffers (write behind): the intermediate merge passes' output. With `spill_firsts`,
/// the blocks' first elements go to disk as they come (a merge whose runs' firsts were
/// spilled), through one more page.
template <class T> class run_writer {
public:
  run_writer(std::uint64_t elements, const block_geometry& g, std::size_t buffers,
             mng::block_manager& bm, mng::allocation_strategy& strategy, std::size_t run_index,
             bool spill_firsts = false)
      : g_(g), bm_(bm), memory_(g.bytes * buffers), buffers_(buffers), requests_(buffers) {
    blocks_ = static_cast<std::size_t>((elements + g.elements - 1) / g.elements);
    if (blocks_) run_.extent = bm.allocate(blocks_ * g.bytes, strategy, run_index);
    try {
      if (spill_firsts && blocks_) firsts_out_.emplace(blocks_, bm, strategy, run_index);
      else run_.firsts.reserve(blocks_);
    } catch (...) {
      if (run_.extent.valid()) bm_.free(run_.extent);
      throw;
    }
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
    if (firsts_out_) firsts_out_->finish(run_);
    if (const std::size_t used = run_.blocks; used < blocks_) {
      bm_.free(mng::block_id{run_.extent.storage, run_.extent.offset + used * g_.bytes, (blocks_ - used) * g_.bytes});
      run_.extent.bytes = used * g_.bytes;
      if (used == 0) run_.extent = {};
      if (run_.firsts.spilled()) { // and the pages of the firsts not written
        const mng::block_id pages = run_.firsts.pages(used);
        const std::uint64_t had = block_firsts<T>::page_bytes(blocks_);
        if (pages.bytes < had) bm_.free(mng::block_id{pages.storage, pages.offset + pages.bytes, had - pages.bytes});
      }
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
    if (run_.blocks == blocks_) {
      throw std::logic_error("flow: run_writer: more elements than announced");
    }
    const mng::block_id id = run_.block(run_.blocks, g_.bytes);
    if (firsts_out_) firsts_out_->push(b[0]);
    else run_.firsts.push_back(b[0]);
    ++run_.blocks;
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
  std::optional<firsts_writer<T>> firsts_out_; // writes run_'s firsts (spill_firsts)
  std::size_t blocks_ = 0;
  bool finished_ = false;
};

} // namespace detail
} // namespace flow::algo
