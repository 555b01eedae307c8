#pragma once
// The external priority queue: Sanders' sequence heap as STXXL builds it, reorganised
// the way the bulk-parallel paper does (sorted arrays labelled with levels instead of
// rigid groups), within a byte budget that it never exceeds.
//
//   insertion heap H   planned capacity (<= 1 MiB, cache resident). Pushes append and
//                      keep the index of the smallest item; only when a pop takes an
//                      item of H is it made a binary heap (pushes then sift up), until
//                      it is full: then it is sorted (two halves, one per core) into
//                      sorted runs, and pushes append again.
//   internal arrays    sorted runs in memory, in fixed-size chunks from a counted pool,
//                      labelled with a level; when a level holds internal_arity arrays
//                      they are merged (loser tree, split between both cores) into one
//                      array of the next level. Consumed chunks are returned at once.
//   external arrays    when the pool has no room for the next runs, every internal
//                      array is merged into one sorted external array, written block by
//                      block through the write pool while merging goes on. Only its
//                      current block and one read-ahead block are in memory once it is
//                      read ("first blocks"); per block the first item is kept, which
//                      tells how far the loaded blocks can be merged without the next.
//                      When a level holds external_arity arrays they are merged into one
//                      of the next level (external multiway merge with prefetching).
//   deletion buffer D  the smallest items outside H, refilled by a multiway merge of
//                      every array's loaded part (the group buffers' job in STXXL);
//                      top() is min(H.top, D.front), pop() takes it.
//
// Equal items: nothing is lost or duplicated, whatever the number of equal items or
// levels; among equal items the order in which they come out is unspecified (not FIFO).
//
// Threads: one queue is used by one thread at a time. Its sorts and merges of thousands
// of items are split between the caller and one helper thread (pq/parallel.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "flow/containers/pq/chunk_pool.hpp"
#include "flow/containers/pq/loser_tree.hpp"
#include "flow/containers/pq/parallel.hpp"
#include "flow/containers/pq/plan.hpp"
#include "flow/containers/pq/runs.hpp"
#include "flow/containers/pq/sort.hpp"
#include "flow/io/buffer.hpp"
#include "flow/mng/allocation.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/buffered_writer.hpp"
#include "flow/mng/prefetcher.hpp"
#include "flow/mng/sized_block.hpp"

namespace flow::containers {

/// Counters of what a queue did (for tests, benchmarks and the run report).
struct pq_stats {
  std::uint64_t heap_flushes = 0;      // insertion heap sorted into runs
  std::uint64_t internal_merges = 0;   // level merges of internal arrays
  std::uint64_t external_flushes = 0;  // internal arrays merged into an external array
  std::uint64_t external_merges = 0;   // level merges of external arrays
  std::uint64_t refills = 0;           // deletion buffer refills
  std::uint64_t parallel_pieces = 0;   // sorts / merges split between two threads
};

/// An external priority queue of T; top() is the smallest item under Cmp (Cmp(a, b)
/// means a comes out before b). T must be trivially copyable.
template <class T, class Cmp = std::less<T>>
class priority_queue {
  static_assert(std::is_trivially_copyable_v<T>, "queue items move as raw bytes");

public:
  using value_type = T;
  using compare_type = Cmp;
  using block_type = mng::sized_block<T>; // of cfg.block_bytes, chosen at run time

  // The constructors and the destructor are defined below the class (not inline: 0.3 s of
  // each edit of mis.flow).
  /// A queue planned by plan_priority_queue (cfg.item_bytes == sizeof(T) and
  /// its blocks of cfg.block_bytes). Throws std::invalid_argument if it is not feasible.
  explicit priority_queue(const pq_config& cfg,
                          mng::block_manager& bm = mng::block_manager::global(), Cmp cmp = Cmp());
  /// Plans for `memory_bytes`, at most `expected_max_items` items (0: unknown) and
  /// blocks of `block_bytes`.
  explicit priority_queue(std::uint64_t memory_bytes, std::uint64_t expected_max_items, std::size_t block_bytes,
                          mng::block_manager& bm = mng::block_manager::global(), Cmp cmp = Cmp());

  ~priority_queue();
  priority_queue(const priority_queue&) = delete;
  priority_queue& operator=(const priority_queue&) = delete;

  // --- the classic interface -------------------------------------------------------------
  std::uint64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  void push(const T& v) {
    if (bulk_) { // (a limit loop runs in bulk mode: its checks cost the plain push nothing)
      if (limit_mode_) limit_push(v);
      else bulk_push(v);
      return;
    }
    if (heap_size_ == heap_cap_) flush_heap();
    if (heap_ordered_) {
      sift_up(v);
    } else { // append; a new smallest item is rare unless pushes descend (predictable)
      if (heap_size_ == 0 || cmp_(v, heap_[heap_min_])) heap_min_ = heap_size_;
      heap_[heap_size_++] = v;
    }
    ++size_;
  }

  /// The smallest item (the queue must not be empty).
  const T& top() {
    if (bulk_) {
      if (limit_mode_) throw_in_limit_loop("top");
      bulk_push_end();
    }
    if (del_pos_ == del_end_) refill();
    if (del_pos_ == del_end_) return heap_min();
    if (heap_size_ && cmp_(heap_min(), del_[del_pos_])) return heap_min();
    return del_[del_pos_];
  }

  /// Removes the smallest item (the queue must not be empty).
  void pop() {
    if (bulk_) {
      if (limit_mode_) throw_in_limit_loop("pop");
      bulk_push_end();
    }
    if (del_pos_ == del_end_) refill();
    if (del_pos_ != del_end_ && !(heap_size_ && cmp_(heap_min(), del_[del_pos_]))) {
      ++del_pos_;
    } else {
      if (heap_size_ == 0) throw std::out_of_range("flow: pop on an empty priority queue");
      pop_heap_top();
    }
    --size_;
  }

  // --- the bulk interface of the bulk-parallel paper -------------------------------------
  /// Starts a bulk of pushes: bulk_push appends without keeping heap order (the heap is
  /// restored by bulk_push_end, or a full buffer is sorted on both cores). top/pop end
  /// the bulk implicitly.
  void bulk_push_begin(std::size_t approx_items = 0) {
    (void)approx_items;
    bulk_ = true;
  }
  void bulk_push(const T& v) {
    if (heap_size_ == heap_cap_) flush_heap();
    heap_[heap_size_++] = v;
    ++size_;
  }
  void bulk_push(std::span<const T> items) {
    while (!items.empty()) {
      if (heap_size_ == heap_cap_) flush_heap();
      const std::size_t n = std::min(items.size(), heap_cap_ - heap_size_);
      std::memcpy(static_cast<void*>(heap_ + heap_size_), items.data(), n * sizeof(T));
      heap_size_ += n;
      size_ += n;
      items = items.subspan(n);
    }
  }
  void bulk_push_end();

  /// Removes the min(k, size()) smallest items and stores them, in order, in out
  /// (replacing its content). Returns their number. The merge runs on both cores.
  std::size_t bulk_pop(std::vector<T>& out, std::size_t k) {
    out.clear();
    pop_bulk(out, k, nullptr);
    return out.size();
  }
  /// Like bulk_pop, but only items strictly smaller than `limit`. Returns true if items
  /// smaller than `limit` remain in the queue afterwards (k was reached).
  bool bulk_pop_limit(std::vector<T>& out, const T& limit, std::size_t k) {
    out.clear();
    pop_bulk(out, k, &limit);
    return !empty() && cmp_(top(), limit);
  }

  // --- the limit-item loop ---------------------------------------------------------------
  //   q.limit_begin(L, bulk);
  //   while (!q.limit_empty()) { T x = q.limit_top(); q.limit_pop(); ... q.limit_push(y); }
  //   q.limit_end();
  // Between begin and end every pushed item must be >= L (limit_push checks, and so does
  // push()); the items smaller than L are then independent of the pushes and come out in
  // bulks that double up to `bulk`. top() and pop() in between are errors (the loop holds the smallest
  // items). `where` (a script's line: its pop_below) goes into those errors' messages.
  void limit_begin(const T& limit, std::size_t bulk_items, const char* where = nullptr);
  /// True when no item smaller than the limit is left.
  bool limit_empty() {
    if (limit_pos_ == limit_buf_.size()) {
      limit_buf_.clear();
      limit_pos_ = 0;
      limit_next_ = std::min(limit_bulk_, 2 * limit_next_);
      extract_limited(limit_buf_, limit_next_, &limit_);
    }
    return limit_pos_ == limit_buf_.size();
  }
  /// The smallest item smaller than the limit (requires !limit_empty()).
  const T& limit_top() {
    if (limit_empty()) throw std::out_of_range("flow: limit_top with no item below the limit");
    return limit_buf_[limit_pos_];
  }
  void limit_pop() {
    if (limit_empty()) throw std::out_of_range("flow: limit_pop with no item below the limit");
    ++limit_pos_;
    --size_;
  }
  void limit_push(const T& v) {
    if (cmp_(v, limit_)) [[unlikely]]
      throw_pushed_before_limit();
    bulk_push(v);
  }
  void limit_end();

  // --- introspection ---------------------------------------------------------------------
  const pq_config& config() const noexcept { return cfg_; }
  const pq_stats& stats() const noexcept { return stats_; }
  std::size_t internal_arrays() const noexcept { return ints_.size(); }
  std::size_t external_arrays() const noexcept { return exts_.size(); }
  /// Buffer bytes the queue holds now (never more than config().memory_bytes).
  std::uint64_t buffer_bytes() const {
    return heap_buf_.size() + del_buf_.size() + sort_buf_.size() + pool_.held_bytes() +
           (writer_ ? (writer_->buffers() + writer2_->buffers()) * cfg_.block_bytes : 0) + ext_read_bytes_;
  }

private:
  // ---------------------------------------------------------------------------------------
  struct heap_less { // std heap algorithms build max-heaps: invert for a min-heap
    Cmp cmp;
    bool operator()(const T& a, const T& b) const { return cmp(b, a); }
  };
  struct int_array {
    std::vector<T*> chunks; // chunk c holds positions [c*ci, (c+1)*ci); nullptr once freed
    std::uint64_t begin = 0, end = 0;
    unsigned level = 0;
  };
  struct ext_array {
    std::vector<mng::block_id> ids;
    std::vector<std::uint32_t> counts; // items per block
    std::vector<T> firsts;             // first item per block
    std::uint64_t remaining = 0;       // items not yet consumed
    std::size_t next_block = 0;        // next block to load
    std::size_t freed = 0;             // ids[0, freed) returned to the block manager
    std::unique_ptr<mng::block_prefetcher<block_type>> pf;
    block_type* cur = nullptr;         // loaded block, items [pos, end)
    T* cur_data = nullptr;
    std::uint32_t pos = 0, end = 0;
    std::size_t read_bytes = 0;        // budget reserved for its read buffers
    unsigned level = 0;
  };

  static const pq_config& checked(const pq_config& cfg) {
    if (!cfg.feasible) {
      throw std::invalid_argument(std::string("flow: priority queue: ") + cfg.problem + " (budget " +
                                  std::to_string(cfg.memory_bytes) + " bytes)");
    }
    if (cfg.item_bytes != sizeof(T)) {
      throw std::invalid_argument("flow: priority queue planned for another item size");
    }
    return cfg;
  }
  std::size_t block_items() const noexcept { return cfg_.block_bytes / sizeof(T); }
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + io::buffer_alignment - 1) / io::buffer_alignment * io::buffer_alignment;
  }
  static constexpr std::size_t parallel_min_items = 16384;

  // --- insertion heap --------------------------------------------------------------------
  void sift_up(const T& v) {
    std::size_t i = heap_size_++;
    while (i > 0) {
      const std::size_t parent = (i - 1) >> 1;
      if (!cmp_(v, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = v;
  }
  /// H's smallest item (H must not be empty).
  const T& heap_min() const { return heap_ordered_ ? heap_[0] : heap_[heap_min_]; }
  /// Removes heap_min() (the very item top() showed, not just one with an equal key).
  void pop_heap_top() {
    if (!heap_ordered_) { // the first pop from H since it was emptied: O(size) once
      heap_[heap_min_] = heap_[heap_size_ - 1];
      --heap_size_;
      std::make_heap(heap_, heap_ + heap_size_, heap_less{cmp_});
      heap_ordered_ = true;
      return;
    }
    std::pop_heap(heap_, heap_ + heap_size_, heap_less{cmp_});
    --heap_size_;
  }

  std::size_t chunks_for(std::uint64_t items) const {
    return static_cast<std::size_t>((items + ci_ - 1) / ci_);
  }
  std::size_t merge_slack() const { return 3 * cfg_.internal_arity + 8; }

  /// Sorts H into runs and moves them into internal arrays (or, when the pool has no
  /// room, merges them with every internal array into a new external array).
  void flush_heap();

  /// Sorts heap_[0, n): two halves on two cores when worth it.
  void heap_less_free_sort(std::size_t n);

  /// A new internal array of the two-way merge of sorted a and b.
  void add_internal_merged(const T* a, std::size_t na, const T* b, std::size_t nb, unsigned level);

  void add_internal(const T* data, std::size_t n, unsigned level);

  void release_chunks(int_array& a);
  /// Returns the chunks wholly before a.begin; drops the array if it is empty.
  void trim(int_array& a);
  void drop_empty_internal();

  // --- merging ---------------------------------------------------------------------------
  /// Walks run i's chunks for the loser tree; returns chunks that were fully consumed
  /// and belong to no other part of the merge (free_lo/free_hi) to the pool.
  struct walker {
    std::span<const pq::run_range<T>> runs;
    std::vector<std::uint64_t> chunk;
    std::vector<char> exhausted;
    std::vector<T**> owner;                  // chunk table to free from (nullptr: none)
    std::vector<std::uint64_t> free_lo, free_hi; // freeable chunks lie inside [lo, hi)
    pq::chunk_pool* pool = nullptr;

    explicit walker(std::span<const pq::run_range<T>> r)
        : runs(r), chunk(r.size()), exhausted(r.size()), owner(r.size(), nullptr),
          free_lo(r.size(), 0), free_hi(r.size(), 0) {}

    /// Lets the walk return passed chunks to `p`: run i's chunk table is owners[i]'s
    /// (nullptr: nothing to free). The first (last) part of a split merge frees chunks
    /// before (after) its part too; a middle part only those inside it.
    void free_passed_chunks(std::span<int_array* const> owners, pq::chunk_pool& p, bool first_part, bool last_part) {
      pool = &p;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!owners[i]) continue;
        owner[i] = owners[i]->chunks.data();
        free_lo[i] = first_part ? 0 : runs[i].begin;
        free_hi[i] = last_part ? std::numeric_limits<std::uint64_t>::max() : runs[i].end;
      }
    }

    std::vector<pq::segment<T>> first_segments() {
      std::vector<pq::segment<T>> s(runs.size());
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const pq::run_range<T>& r = runs[i];
        if (r.begin < r.end) {
          chunk[i] = r.begin / r.chunk_items;
          s[i] = r.segment_at(r.begin);
        } else {
          chunk[i] = r.begin / r.chunk_items;
          s[i] = {};
        }
      }
      return s;
    }
    void leave(std::size_t i, std::uint64_t c) {
      if (!owner[i]) return;
      const std::uint64_t ci = runs[i].chunk_items;
      if (c * ci >= free_lo[i] && (c + 1) * ci <= free_hi[i] && owner[i][c]) {
        pool->release(owner[i][c]);
        owner[i][c] = nullptr;
      }
    }
    bool operator()(std::size_t i, pq::segment<T>& seg) {
      const pq::run_range<T>& r = runs[i];
      if (exhausted[i]) return false;
      if (r.begin == r.end) {
        exhausted[i] = 1;
        return false;
      }
      const std::uint64_t next = (chunk[i] + 1) * r.chunk_items;
      leave(i, chunk[i]);
      if (next >= r.end || r.chunk_items == pq::contiguous) {
        exhausted[i] = 1;
        return false;
      }
      ++chunk[i];
      seg = r.segment_at(next);
      return true;
    }
    std::uint64_t position(std::size_t i, const pq::segment<T>& cur) const {
      const pq::run_range<T>& r = runs[i];
      if (exhausted[i] || r.begin == r.end) return r.end;
      return chunk[i] * r.chunk_items + static_cast<std::uint64_t>(cur.cur - r.chunks[chunk[i]]);
    }
  };

  /// Merges the runs (exactly `n` items in total are taken) into out[0, n).
  /// Returns the positions where each run stopped.
  template <class Setup>
  std::vector<std::uint64_t> merge_seq(pq::loser_tree<T, Cmp>& tree, std::span<const pq::run_range<T>> runs,
                                       T* out, std::uint64_t n, Setup&& setup);

  /// If the runs do not overlap (each one's last item <= the next one's first, in some
  /// order), that order; else empty. Ascending and time-forward pushes make such runs:
  /// they are then concatenated by copying instead of merged.
  std::vector<std::size_t> disjoint_order(std::span<const pq::run_range<T>> runs) const;

  /// Copies runs one after another (in `order`), returning owned chunks as they empty.
  struct concat_reader {
    std::span<const pq::run_range<T>> runs;
    std::span<int_array* const> owners; // may be empty: nothing owned
    std::vector<std::size_t> order;
    pq::chunk_pool* pool;
    std::size_t k = 0;
    std::uint64_t pos = 0;

    void read(T* dst, std::uint64_t n) {
      while (n > 0) {
        const pq::run_range<T>& r = runs[order[k]];
        if (pos == r.end) {
          ++k;
          pos = runs[order[k]].begin;
          continue;
        }
        const pq::segment<T> seg = r.segment_at(pos);
        const std::uint64_t len = static_cast<std::uint64_t>(seg.end - seg.cur);
        const std::uint64_t m = std::min(len, n);
        std::memcpy(static_cast<void*>(dst), seg.cur, m * sizeof(T));
        dst += m;
        n -= m;
        const std::uint64_t c = pos / r.chunk_items;
        pos += m;
        int_array* o = owners.empty() ? nullptr : owners[order[k]];
        if (o && m == len && o->chunks[c]) { // left the chunk: it is dead
          pool->release(o->chunks[c]);
          o->chunks[c] = nullptr;
        }
      }
    }
  };
  concat_reader make_concat(std::span<const pq::run_range<T>> runs, std::span<int_array* const> owners,
                            std::vector<std::size_t> order) {
    concat_reader c{runs, owners, std::move(order), &pool_};
    c.pos = runs[c.order[0]].begin;
    return c;
  }

  /// Merges all of `runs` into positions [0, n) of the chunk table `out` (chunks taken
  /// from the pool as needed). Chunks of owned input runs are returned as they empty.
  /// owners[i] is run i's int_array or nullptr. Splits between two cores when large.
  void merge_into_chunks(std::span<const pq::run_range<T>> runs, std::span<int_array* const> owners,
                         std::vector<T*>& out, std::uint64_t n);

  /// Merges internal levels that are full, lowest first.
  void cascade_internal();

  void merge_internal_level(unsigned level);

  // --- external arrays -------------------------------------------------------------------
  /// The write pool, as two writers of half the blocks each (one per merging thread).
  mng::buffered_writer<block_type>& writer(int which = 0) {
    if (!writer_) {
      const std::size_t a = std::max<std::size_t>(1, cfg_.write_blocks / 2);
      writer_ = std::make_unique<mng::buffered_writer<block_type>>(a, cfg_.block_bytes);
      writer2_ = std::make_unique<mng::buffered_writer<block_type>>(std::max<std::size_t>(1, cfg_.write_blocks - a),
                                                                    cfg_.block_bytes);
    }
    return which ? *writer2_ : *writer_;
  }

  /// Writes the next n items of the merge into new blocks of e (block indices for the
  /// allocation strategy from `index`).
  /// Writes n items into new blocks of e; fill(dst, m) produces the next m items.
  template <class Fill>
  void write_blocks(ext_array& e, std::uint64_t n, mng::buffered_writer<block_type>& w,
                    std::uint64_t index, Fill&& fill) {
    mng::allocation_strategy strategy = strategy_; // a copy per merging thread
    for (std::uint64_t done = 0; done < n;) {
      block_type* blk = w.get_free_block();
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(blk->elements(), n - done));
      fill(blk->data(), m);
      if (m < blk->elements()) {
        std::memset(static_cast<void*>(blk->data() + m), 0, (blk->elements() - m) * sizeof(T));
      }
      mng::block_id id;
      try {
        id = bm_.allocate(cfg_.block_bytes, strategy, index++);
      } catch (...) {
        w.release(blk);
        throw;
      }
      e.ids.push_back(id);
      e.counts.push_back(static_cast<std::uint32_t>(m));
      e.firsts.push_back((*blk)[0]);
      w.write(blk, id);
      done += m;
    }
  }

  template <class Next>
  std::unique_ptr<ext_array> write_external(pq::loser_tree<T, Cmp>& tree, Next& next, std::uint64_t n,
                                            unsigned level) {
    auto e = std::make_unique<ext_array>();
    e->level = level;
    e->remaining = n;
    write_blocks(*e, n, writer(0), blocks_allocated_,
                 [&](T* dst, std::size_t m) { tree.merge(dst, m, next); });
    blocks_allocated_ += e->ids.size();
    return e;
  }

  /// Every internal array (and `extra` runs, e.g. the sorted heap) into one external array.
  void flush_to_external(std::span<const pq::run_range<T>> extra);

  void add_external(std::unique_ptr<ext_array> e);

  void update_pool_limit();

  void cascade_external();

  void open_external(ext_array& e);
  /// Moves e to its next block; false when it has none.
  bool advance_block(ext_array& e);
  void drop_external(ext_array& e);
  void remove_external(std::size_t idx);

  void merge_external_level(unsigned level);

  // --- extraction ------------------------------------------------------------------------
  void refill();

  /// Writes up to k of the smallest items of the arrays (not H, not D) to out, in order;
  /// with a limit only items smaller than *limit. Returns their number.
  /// Where extract puts items: a raw buffer (D) or the end of a caller's vector (bulk
  /// pops; copies append without first zero-filling the space).
  struct buffer_sink {
    T* p;
    void copy(const T* src, std::size_t n) {
      std::memcpy(static_cast<void*>(p), src, n * sizeof(T));
      p += n;
    }
    T* slots(std::size_t n) {
      T* r = p;
      p += n;
      return r;
    }
  };
  struct vector_sink {
    std::vector<T>& v;
    void copy(const T* src, std::size_t n) { v.insert(v.end(), src, src + n); }
    T* slots(std::size_t n) {
      const std::size_t s = v.size();
      v.resize(s + n);
      return v.data() + s;
    }
  };

  template <class Sink> std::size_t extract(Sink& sink, std::size_t k, const T* limit) {
    std::size_t produced = 0;
    std::vector<pq::run_range<T>> runs;
    std::vector<int_array*> int_owner;
    std::vector<ext_array*> ext_owner;
    while (produced < k) {
      runs.clear();
      int_owner.clear();
      ext_owner.clear();
      // External arrays: the loaded block takes part; the first item of the next block
      // not loaded bounds what may be merged now.
      bool bounded = false;
      T bound{};
      ext_array* bounding = nullptr;
      for (std::size_t i = 0; i < exts_.size();) {
        ext_array& e = *exts_[i];
        if (e.cur && e.pos == e.end && !advance_block(e)) {
          remove_external(i);
          continue;
        }
        if (e.next_block < e.ids.size()) {
          const T& f = e.firsts[e.next_block];
          if (!bounded || cmp_(f, bound)) {
            bound = f;
            bounded = true;
            bounding = &e;
          }
        }
        if (e.cur) {
          runs.push_back({&e.cur_data, pq::contiguous, e.pos, e.end});
          int_owner.push_back(nullptr);
          ext_owner.push_back(&e);
        }
        ++i;
      }
      for (auto& a : ints_) {
        if (a->begin == a->end) continue;
        runs.push_back({a->chunks.data(), ci_, a->begin, a->end});
        int_owner.push_back(a.get());
        ext_owner.push_back(nullptr);
      }
      std::uint64_t avail = 0;
      for (auto& r : runs) {
        if (bounded) r.end = pq::upper_pos(r, r.begin, r.end, bound, cmp_);
        if (limit) r.end = pq::lower_pos(r, r.begin, r.end, *limit, cmp_);
        avail += r.size();
      }
      if (avail == 0) {
        // Nothing loaded may go out: load the block that bounds (unless the limit
        // says nothing below it can be left).
        if (bounded && !(limit && !cmp_(bound, *limit))) {
          if (!advance_block(*bounding)) throw std::logic_error("flow: priority queue lost a block");
          continue;
        }
        break;
      }
      const std::uint64_t want = std::min<std::uint64_t>(k - produced, avail);
      // Only runs with items below the bounds take part (a shallower tree); a single
      // one is copied (ascending and time-forward data often come from one array).
      std::vector<pq::run_range<T>> live;
      std::vector<std::size_t> live_of;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].size()) {
          live.push_back(runs[i]);
          live_of.push_back(i);
        }
      }
      std::vector<std::uint64_t> lstop;
      if (live.size() == 1) {
        const pq::run_range<T>& r = live[0];
        for (std::uint64_t p = r.begin, done = 0; done < want;) {
          const pq::segment<T> seg = r.segment_at(p);
          const std::uint64_t m = std::min<std::uint64_t>(static_cast<std::uint64_t>(seg.end - seg.cur), want - done);
          sink.copy(seg.cur, static_cast<std::size_t>(m));
          done += m;
          p += m;
        }
        lstop.push_back(r.begin + want);
      } else if (want >= 2 * parallel_min_items && pq::parallel_available()) {
        if (want < avail) {
          lstop = pq::multiseq_split<T>(live, want, cmp_);
          for (std::size_t i = 0; i < live.size(); ++i) live[i].end = lstop[i];
        } else {
          lstop.resize(live.size());
          for (std::size_t i = 0; i < live.size(); ++i) lstop[i] = live[i].end;
        }
        const std::uint64_t h = want / 2;
        std::vector<std::uint64_t> mid = pq::multiseq_split<T>(live, h, cmp_);
        std::vector<pq::run_range<T>> a(live), b(live);
        for (std::size_t i = 0; i < live.size(); ++i) {
          a[i].end = mid[i];
          b[i].begin = mid[i];
        }
        T* o = sink.slots(static_cast<std::size_t>(want));
        auto none = [](walker&) {};
        pq::run_pair([&] { merge_seq(tree_, a, o, h, none); },
                     [&] { merge_seq(tree2_, b, o + h, want - h, none); });
        ++stats_.parallel_pieces;
      } else {
        lstop = merge_seq(tree_, live, sink.slots(static_cast<std::size_t>(want)), want, [](walker&) {});
      }
      std::vector<std::uint64_t> stop(runs.size());
      for (std::size_t i = 0; i < runs.size(); ++i) stop[i] = runs[i].begin;
      for (std::size_t j = 0; j < live.size(); ++j) stop[live_of[j]] = lstop[j];
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (int_owner[i]) {
          int_owner[i]->begin = stop[i];
          trim(*int_owner[i]);
        } else {
          ext_array& e = *ext_owner[i];
          const std::uint64_t taken = stop[i] - e.pos;
          e.pos = static_cast<std::uint32_t>(stop[i]);
          e.remaining -= taken;
        }
      }
      drop_empty_internal();
      produced += static_cast<std::size_t>(want);
    }
    return produced;
  }

  /// bulk_pop / bulk_pop_limit: H is sorted into the arrays first, D's items come first.
  void pop_bulk(std::vector<T>& out, std::size_t k, const T* limit, bool count = true);
  /// Appends up to k items (below *limit if given) from D and the arrays to out.
  void extract_limited(std::vector<T>& out, std::size_t k, const T* limit);
  // (Out of line: push() stays small enough to be inlined where a script pushes.)
  [[noreturn]] void throw_in_limit_loop(const char* what) const;
  [[noreturn]] void throw_pushed_before_limit() const;

  // ---------------------------------------------------------------------------------------
  pq_config cfg_;
  Cmp cmp_;
  mng::block_manager& bm_;
  mng::allocation_strategy strategy_ = mng::allocation_strategy::striping();
  const std::size_t ci_; // items per chunk
  pq::chunk_pool pool_;
  io::aligned_buffer heap_buf_, del_buf_, sort_buf_;
  T* heap_ = nullptr;
  T* scratch_ = nullptr;
  T* heap_ptr_ = nullptr; // chunk table of one entry for runs over the heap buffer
  std::size_t heap_size_ = 0, heap_cap_ = 0;
  bool heap_ordered_ = false; // H is a binary heap; else unordered, its smallest at heap_min_
  std::size_t heap_min_ = 0;
  std::size_t heap_runs_ = 1, heap_split_ = 0;
  T* del_ = nullptr;
  T* del_ptr_ = nullptr;
  std::size_t del_pos_ = 0, del_end_ = 0, del_cap_ = 0;
  std::vector<std::unique_ptr<int_array>> ints_;
  std::vector<std::unique_ptr<ext_array>> exts_;
  std::unique_ptr<mng::buffered_writer<block_type>> writer_, writer2_;
  std::uint64_t ext_read_bytes_ = 0;
  std::uint64_t blocks_allocated_ = 0;
  std::uint64_t size_ = 0;
  pq::loser_tree<T, Cmp> tree_, tree2_;
  bool bulk_ = false;
  bool limit_mode_ = false;
  const char* limit_where_ = nullptr;
  T limit_{};
  // A limit loop takes its items in bulks that double from limit_first_bulk up to
  // limit_bulk_: one that stops early (a script's `break`) put back at most as many as
  // it took, not a whole bulk of the items below its limit.
  static constexpr std::size_t limit_first_bulk = 1024;
  std::size_t limit_bulk_ = 1, limit_next_ = 1;
  std::vector<T> limit_buf_;
  std::size_t limit_pos_ = 0;
  pq_stats stats_;
};

// Below: the members that run once per run, block or refill, defined outside the class
// so that they are not inline. A program built in parts (flowc build -j, docs/install.md)
// then compiles them only in the part that instantiates the class (`template class`);
// the others see `extern template class` and call them.
template <class T, class Cmp>
priority_queue<T, Cmp>::priority_queue(const pq_config& cfg, mng::block_manager& bm, Cmp cmp)
    : cfg_(checked(cfg)), cmp_(cmp), bm_(bm), ci_(cfg_.chunk_bytes / sizeof(T)),
      pool_(cfg_.chunk_bytes, static_cast<std::size_t>(cfg_.pool_bytes / cfg_.chunk_bytes)),
      heap_buf_(round_up(cfg_.insertion_items * sizeof(T))),
      del_buf_(round_up(cfg_.deletion_items * sizeof(T))),
      sort_buf_(round_up(cfg_.insertion_items * sizeof(T))), tree_(cmp), tree2_(cmp) {
  heap_ = reinterpret_cast<T*>(heap_buf_.data());
  scratch_ = reinterpret_cast<T*>(sort_buf_.data());
  del_ = reinterpret_cast<T*>(del_buf_.data());
  heap_cap_ = cfg_.insertion_items;
  del_cap_ = cfg_.deletion_items;
}

template <class T, class Cmp>
priority_queue<T, Cmp>::priority_queue(std::uint64_t memory_bytes, std::uint64_t expected_max_items,
                                       std::size_t block_bytes, mng::block_manager& bm, Cmp cmp)
    : priority_queue(plan_priority_queue(memory_bytes, expected_max_items, sizeof(T), block_bytes), bm, cmp) {}

template <class T, class Cmp>
priority_queue<T, Cmp>::~priority_queue() {
  writer_.reset(); // wait for writes in flight
  writer2_.reset();
  for (auto& a : ints_) release_chunks(*a);
  for (auto& e : exts_) drop_external(*e);
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::bulk_push_end() {
  if (!bulk_) return;
  bulk_ = false;
  if (heap_size_ > heap_cap_ / 2) {
    flush_heap(); // a big bulk: sorting beats heapifying
  } else {
    std::make_heap(heap_, heap_ + heap_size_, heap_less{cmp_});
    heap_ordered_ = true;
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::limit_begin(const T& limit, std::size_t bulk_items, const char* where) {
  if (limit_mode_ && where && limit_where_) {
    throw std::logic_error(std::string(where) + ": a pop_below of a queue whose pop_below at " + limit_where_ +
                           " is running (it is taking the queue's first items)");
  }
  if (limit_mode_) throw_in_limit_loop("limit_begin");
  limit_where_ = where;
  if (bulk_) bulk_push_end();
  limit_ = limit;
  limit_bulk_ = std::max<std::size_t>(bulk_items, 1);
  limit_buf_.clear();
  limit_pos_ = 0;
  limit_next_ = std::min(limit_bulk_, limit_first_bulk);
  pop_bulk(limit_buf_, limit_next_, &limit_, /*count=*/false); // also flushes H
  limit_mode_ = true;
  bulk_ = true; // limit_push appends to H without heap order
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::limit_end() {
  if (!limit_mode_) return;
  limit_mode_ = false;
  // Items below the limit that were not popped go back (they are counted in size_).
  for (std::size_t i = limit_pos_; i < limit_buf_.size(); ++i) {
    if (heap_size_ == heap_cap_) flush_heap();
    heap_[heap_size_++] = limit_buf_[i];
  }
  limit_buf_ = std::vector<T>(); // its memory was the loop's (planned with it), not the queue's
  limit_pos_ = 0;
  bulk_push_end();
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::throw_pushed_before_limit() const {
  throw std::invalid_argument(limit_where_ ? std::string(limit_where_) +
                                                 ": while this pop_below runs, a push into its queue of an item before "
                                                 "its limit (only items at or after the limit may be pushed then)"
                                           : std::string("flow: limit_push of an item smaller than the limit item"));
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::throw_in_limit_loop(const char* what) const {
  throw std::logic_error(limit_where_ ? std::string(limit_where_) + ": the queue's " + what +
                                            "() while this pop_below runs (it is taking the queue's first items)"
                                      : std::string("flow: ") + what + " inside a limit loop");
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::flush_heap() {
  const std::size_t n = heap_size_;
  if (n == 0) return;
  ++stats_.heap_flushes;
  heap_less_free_sort(n);
  std::vector<pq::run_range<T>> runs;
  heap_ptr_ = heap_;
  if (heap_runs_ == 1) {
    runs.push_back({&heap_ptr_, pq::contiguous, 0, n});
  } else {
    runs.push_back({&heap_ptr_, pq::contiguous, 0, heap_split_});
    runs.push_back({&heap_ptr_, pq::contiguous, heap_split_, n});
  }
  // Invariant: D <= every array. A run starting below D's last item breaks it: D's
  // items then go back into the arrays (they are found again by the next refill).
  bool conflict = false;
  if (del_pos_ != del_end_) {
    for (const auto& r : runs) conflict |= cmp_(r.at(r.begin), del_[del_end_ - 1]);
  }
  del_ptr_ = del_;
  const std::size_t del_live = del_end_ - del_pos_;
  std::size_t need = chunks_for(n) + 2 + merge_slack();
  if (conflict) need += chunks_for(del_live) + 1;
  if (pool_.available() < need) {
    if (conflict) runs.push_back({&del_ptr_, pq::contiguous, del_pos_, del_end_});
    flush_to_external(runs);
    if (conflict) del_pos_ = del_end_ = 0;
  } else {
    if (conflict) { // D keeps its items <= the runs' smallest; the rest goes back
      T low = runs[0].at(runs[0].begin);
      for (const auto& r : runs) {
        if (cmp_(r.at(r.begin), low)) low = r.at(r.begin);
      }
      const std::size_t cut = static_cast<std::size_t>(
          std::upper_bound(del_ + del_pos_, del_ + del_end_, low, cmp_) - del_);
      add_internal(del_ + cut, del_end_ - cut, 0);
      del_end_ = cut;
    }
    if (runs.size() == 1) {
      add_internal(heap_, n, 0);
    } else {
      add_internal_merged(heap_, runs[0].size(), heap_ + runs[1].begin, runs[1].size(), 0);
    }
    cascade_internal();
  }
  heap_size_ = 0;
  heap_ordered_ = false;
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::heap_less_free_sort(std::size_t n) {
  if (std::is_sorted(heap_, heap_ + n, cmp_)) { // ascending pushes: nothing to do
    heap_runs_ = 1;
    heap_split_ = n;
    return;
  }
  if (n >= 2 * parallel_min_items && pq::parallel_available()) {
    heap_split_ = n / 2;
    T* h = heap_;
    T* sc = scratch_;
    const Cmp cmp = cmp_;
    pq::run_pair([&] { pq::sort_run(h, n / 2, sc, cmp); },
                 [&] { pq::sort_run(h + n / 2, n - n / 2, sc + n / 2, cmp); });
    heap_runs_ = 2;
    ++stats_.parallel_pieces;
  } else {
    pq::sort_run(heap_, n, scratch_, cmp_);
    heap_runs_ = 1;
    heap_split_ = n;
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::add_internal_merged(const T* a, std::size_t na, const T* b, std::size_t nb, unsigned level) {
  const std::size_t n = na + nb;
  if (n == 0) return;
  auto arr = std::make_unique<int_array>();
  arr->chunks.assign(chunks_for(n), nullptr);
  arr->end = n;
  arr->level = level;
  pq::merge2<T, Cmp> m{a, a + na, b, b + nb};
  for (std::size_t c = 0; c < arr->chunks.size(); ++c) {
    arr->chunks[c] = static_cast<T*>(pool_.acquire());
    m.take(arr->chunks[c], static_cast<std::size_t>(std::min<std::uint64_t>(ci_, n - c * ci_)), cmp_);
  }
  ints_.push_back(std::move(arr));
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::add_internal(const T* data, std::size_t n, unsigned level) {
  if (n == 0) return;
  auto a = std::make_unique<int_array>();
  a->chunks.assign(chunks_for(n), nullptr);
  a->begin = 0;
  a->end = n;
  a->level = level;
  for (std::size_t c = 0; c < a->chunks.size(); ++c) {
    a->chunks[c] = static_cast<T*>(pool_.acquire());
    const std::size_t m = std::min<std::uint64_t>(ci_, n - c * ci_);
    std::memcpy(static_cast<void*>(a->chunks[c]), data + c * ci_, m * sizeof(T));
  }
  ints_.push_back(std::move(a));
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::release_chunks(int_array& a) {
  for (T*& c : a.chunks) {
    if (c) pool_.release(c);
    c = nullptr;
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::trim(int_array& a) {
  const std::uint64_t first_live = a.begin / ci_;
  for (std::uint64_t c = 0; c < first_live && c < a.chunks.size(); ++c) {
    if (a.chunks[c]) {
      pool_.release(a.chunks[c]);
      a.chunks[c] = nullptr;
    }
  }
  if (a.begin == a.end) release_chunks(a);
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::drop_empty_internal() {
  std::erase_if(ints_, [](const std::unique_ptr<int_array>& a) { return a->begin == a->end; });
}

template <class T, class Cmp>
template <class Setup>
std::vector<std::uint64_t> priority_queue<T, Cmp>::merge_seq(pq::loser_tree<T, Cmp>& tree, std::span<const pq::run_range<T>> runs,
                                       T* out, std::uint64_t n, Setup&& setup) {
  walker w(runs);
  setup(w);
  auto segs = w.first_segments();
  tree.start(std::span<const pq::segment<T>>(segs), w);
  tree.merge(out, n, w);
  std::vector<std::uint64_t> pos(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) pos[i] = w.position(i, tree.cursor(i));
  return pos;
}

template <class T, class Cmp>
std::vector<std::size_t> priority_queue<T, Cmp>::disjoint_order(std::span<const pq::run_range<T>> runs) const {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].size()) order.push_back(i);
  }
  if (order.size() < 2) return order;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cmp_(runs[a].at(runs[a].begin), runs[b].at(runs[b].begin));
  });
  for (std::size_t j = 1; j < order.size(); ++j) {
    const auto& prev = runs[order[j - 1]];
    const auto& next = runs[order[j]];
    if (cmp_(next.at(next.begin), prev.at(prev.end - 1))) return {};
  }
  return order;
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::merge_into_chunks(std::span<const pq::run_range<T>> runs, std::span<int_array* const> owners,
                         std::vector<T*>& out, std::uint64_t n) {
  out.assign(chunks_for(n), nullptr);
  if (n == 0) return;
  if (std::vector<std::size_t> order = disjoint_order(runs); !order.empty()) {
    concat_reader rd = make_concat(runs, owners, std::move(order));
    for (std::size_t c = 0; c < out.size(); ++c) {
      out[c] = static_cast<T*>(pool_.acquire());
      rd.read(out[c], std::min<std::uint64_t>(ci_, n - c * ci_));
    }
    return;
  }
  auto fill = [&](pq::loser_tree<T, Cmp>& tree, std::span<const pq::run_range<T>> part,
                  std::uint64_t from, std::uint64_t to, bool first_part, bool last_part) {
    walker w(part);
    w.free_passed_chunks(owners, pool_, first_part, last_part);
    auto segs = w.first_segments();
    tree.start(std::span<const pq::segment<T>>(segs), w);
    for (std::uint64_t p = from; p < to;) {
      const std::uint64_t c = p / ci_;
      if (!out[c]) out[c] = static_cast<T*>(pool_.acquire());
      const std::uint64_t m = std::min<std::uint64_t>(to, (c + 1) * ci_) - p;
      tree.merge(out[c] + (p - c * ci_), static_cast<std::size_t>(m), w);
      p += m;
    }
    // The last chunk of a run is left when the run ends inside it: walk once more.
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i].begin < part[i].end && !w.exhausted[i]) {
        pq::segment<T> s = tree.cursor(i);
        if (s.cur == s.end) w(i, s);
      }
    }
  };
  if (n >= 2 * parallel_min_items && pq::parallel_available() && runs.size() > 1) {
    const std::uint64_t h = n / 2;
    std::vector<std::uint64_t> mid = pq::multiseq_split<T>(runs, h, cmp_);
    std::vector<pq::run_range<T>> a(runs.begin(), runs.end()), b(runs.begin(), runs.end());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      a[i].end = mid[i];
      b[i].begin = mid[i];
    }
    if (h % ci_ != 0) out[h / ci_] = static_cast<T*>(pool_.acquire()); // shared chunk
    pq::run_pair([&] { fill(tree_, a, 0, h, true, false); },
                 [&] { fill(tree2_, b, h, n, false, true); });
    ++stats_.parallel_pieces;
  } else {
    fill(tree_, runs, 0, n, true, true);
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::cascade_internal() {
  for (unsigned level = 0;; ++level) {
    std::size_t count = 0;
    for (const auto& a : ints_) count += a->level == level;
    if (count < cfg_.internal_arity) {
      bool higher = false;
      for (const auto& a : ints_) higher |= a->level > level;
      if (!higher) return;
      continue;
    }
    if (pool_.available() < merge_slack()) {
      std::vector<pq::run_range<T>> none;
      flush_to_external(none);
      return;
    }
    merge_internal_level(level);
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::merge_internal_level(unsigned level) {
  std::vector<pq::run_range<T>> runs;
  std::vector<int_array*> owners;
  std::uint64_t n = 0;
  for (auto& a : ints_) {
    if (a->level != level || a->begin == a->end) continue;
    runs.push_back({a->chunks.data(), ci_, a->begin, a->end});
    owners.push_back(a.get());
    n += a->end - a->begin;
  }
  auto out = std::make_unique<int_array>();
  out->level = level + 1;
  out->begin = 0;
  out->end = n;
  merge_into_chunks(runs, owners, out->chunks, n);
  for (int_array* a : owners) {
    a->begin = a->end;
    release_chunks(*a);
  }
  for (auto& a : ints_) {
    if (a->level == level) a->begin = a->end; // empty ones too
  }
  drop_empty_internal();
  if (n) ints_.push_back(std::move(out));
  ++stats_.internal_merges;
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::flush_to_external(std::span<const pq::run_range<T>> extra) {
  std::vector<pq::run_range<T>> runs;
  std::vector<int_array*> owners;
  std::uint64_t n = 0;
  for (auto& a : ints_) {
    if (a->begin == a->end) continue;
    runs.push_back({a->chunks.data(), ci_, a->begin, a->end});
    owners.push_back(a.get());
    n += a->end - a->begin;
  }
  for (const auto& r : extra) {
    if (r.begin == r.end) continue;
    runs.push_back(r);
    owners.push_back(nullptr);
    n += r.size();
  }
  if (n > 0) {
    auto e = std::make_unique<ext_array>();
    e->remaining = n;
    // Two halves on two cores; the first ends on a block boundary, so only the last
    // block of the array is partial.
    const std::uint64_t h = n / 2 / block_items() * block_items();
    std::vector<std::size_t> order = disjoint_order(runs);
    if (!order.empty()) {
      concat_reader rd = make_concat(runs, owners, std::move(order));
      write_blocks(*e, n, writer(0), blocks_allocated_, [&](T* d, std::size_t m) { rd.read(d, m); });
    } else if (h >= parallel_min_items && pq::parallel_available() && runs.size() > 1) {
      std::vector<std::uint64_t> mid = pq::multiseq_split<T>(runs, h, cmp_);
      std::vector<pq::run_range<T>> a(runs), b(runs);
      for (std::size_t i = 0; i < runs.size(); ++i) {
        a[i].end = mid[i];
        b[i].begin = mid[i];
      }
      ext_array second;
      const std::uint64_t index = blocks_allocated_;
      writer(0);
      pq::run_pair(
          [&] {
            walker w(a);
            w.free_passed_chunks(owners, pool_, true, false);
            auto segs = w.first_segments();
            tree_.start(std::span<const pq::segment<T>>(segs), w);
            write_blocks(*e, h, *writer_, index, [&](T* d, std::size_t m) { tree_.merge(d, m, w); });
          },
          [&] {
            walker w(b);
            w.free_passed_chunks(owners, pool_, false, true);
            auto segs = w.first_segments();
            tree2_.start(std::span<const pq::segment<T>>(segs), w);
            write_blocks(second, n - h, *writer2_, index + h / block_items(),
                         [&](T* d, std::size_t m) { tree2_.merge(d, m, w); });
          });
      e->ids.insert(e->ids.end(), second.ids.begin(), second.ids.end());
      e->counts.insert(e->counts.end(), second.counts.begin(), second.counts.end());
      e->firsts.insert(e->firsts.end(), second.firsts.begin(), second.firsts.end());
      ++stats_.parallel_pieces;
    } else {
      walker w(runs);
      w.free_passed_chunks(owners, pool_, true, true);
      auto segs = w.first_segments();
      tree_.start(std::span<const pq::segment<T>>(segs), w);
      write_blocks(*e, n, writer(0), blocks_allocated_, [&](T* d, std::size_t m) { tree_.merge(d, m, w); });
    }
    blocks_allocated_ += e->ids.size();
    for (auto& a : ints_) release_chunks(*a);
    ints_.clear();
    ++stats_.external_flushes;
    add_external(std::move(e));
  } else {
    for (auto& a : ints_) release_chunks(*a);
    ints_.clear();
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::add_external(std::unique_ptr<ext_array> e) {
  e->read_bytes = std::min<std::size_t>(cfg_.read_blocks_per_array, e->ids.size()) * cfg_.block_bytes;
  ext_read_bytes_ += e->read_bytes;
  update_pool_limit();
  exts_.push_back(std::move(e));
  cascade_external();
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::update_pool_limit() {
  const std::uint64_t room = cfg_.pool_bytes > ext_read_bytes_ ? cfg_.pool_bytes - ext_read_bytes_ : 0;
  pool_.set_limit(static_cast<std::size_t>(room / cfg_.chunk_bytes));
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::cascade_external() {
  for (unsigned level = 0;; ++level) {
    std::size_t count = 0;
    bool higher = false;
    for (const auto& e : exts_) {
      count += e->level == level;
      higher |= e->level > level;
    }
    // Also merge when the read buffers would crowd out the internal arrays.
    const bool crowded = ext_read_bytes_ > cfg_.pool_bytes / 2 && count >= 2;
    if (count >= cfg_.external_arity || crowded) {
      merge_external_level(level);
      continue;
    }
    if (!higher) return;
  }
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::open_external(ext_array& e) {
  if (e.pf) return;
  e.pf = std::make_unique<mng::block_prefetcher<block_type>>(
      e.ids, std::min<std::size_t>(cfg_.read_blocks_per_array, e.ids.size()), cfg_.block_bytes);
}

template <class T, class Cmp>
bool priority_queue<T, Cmp>::advance_block(ext_array& e) {
  open_external(e);
  if (e.cur) {
    e.pf->give_back(e.cur);
    e.cur = nullptr;
    e.cur_data = nullptr;
    bm_.free(e.ids[e.freed]);
    ++e.freed;
  }
  if (e.next_block == e.ids.size()) return false;
  e.cur = e.pf->pull();
  e.cur_data = e.cur->data();
  e.pos = 0;
  e.end = e.counts[e.next_block];
  ++e.next_block;
  return true;
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::drop_external(ext_array& e) {
  if (e.cur && e.pf) e.pf->give_back(e.cur);
  e.cur = nullptr;
  e.pf.reset();
  for (std::size_t i = e.freed; i < e.ids.size(); ++i) bm_.free(e.ids[i]);
  e.freed = e.ids.size();
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::remove_external(std::size_t idx) {
  drop_external(*exts_[idx]);
  ext_read_bytes_ -= exts_[idx]->read_bytes;
  exts_.erase(exts_.begin() + static_cast<std::ptrdiff_t>(idx));
  update_pool_limit();
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::merge_external_level(unsigned level) {
  std::vector<ext_array*> in;
  std::uint64_t n = 0;
  for (auto& e : exts_) {
    if (e->level == level) {
      in.push_back(e.get());
      n += e->remaining;
    }
  }
  // Each source: the rest of its current block, then its next blocks.
  std::vector<pq::segment<T>> segs(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    ext_array& e = *in[i];
    if (!e.cur || e.pos == e.end) {
      if (!advance_block(e)) continue;
    }
    segs[i] = {e.cur_data + e.pos, e.cur_data + e.end};
  }
  auto next = [&](std::size_t i, pq::segment<T>& s) {
    ext_array& e = *in[i];
    if (!advance_block(e)) return false;
    s = {e.cur_data, e.cur_data + e.end};
    return true;
  };
  tree_.start(std::span<const pq::segment<T>>(segs), next);
  auto out = write_external(tree_, next, n, level + 1);
  for (std::size_t i = exts_.size(); i-- > 0;) {
    if (exts_[i]->level == level) remove_external(i);
  }
  ++stats_.external_merges;
  out->read_bytes = std::min<std::size_t>(cfg_.read_blocks_per_array, out->ids.size()) * cfg_.block_bytes;
  ext_read_bytes_ += out->read_bytes;
  update_pool_limit();
  exts_.push_back(std::move(out));
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::refill() {
  del_pos_ = del_end_ = 0;
  if (ints_.empty() && exts_.empty()) return;
  ++stats_.refills;
  buffer_sink sink{del_};
  del_end_ = extract(sink, del_cap_, nullptr);
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::pop_bulk(std::vector<T>& out, std::size_t k, const T* limit, bool count) {
  if (bulk_) bulk_push_end();
  if (heap_size_) flush_heap();
  extract_limited(out, k, limit);
  if (count) size_ -= out.size();
}

template <class T, class Cmp>
void priority_queue<T, Cmp>::extract_limited(std::vector<T>& out, std::size_t k, const T* limit) {
  k = static_cast<std::size_t>(std::min<std::uint64_t>(k, size_));
  std::size_t from_d = std::min(k, del_end_ - del_pos_);
  if (limit) {
    from_d = static_cast<std::size_t>(
        std::lower_bound(del_ + del_pos_, del_ + del_pos_ + from_d, *limit, cmp_) - (del_ + del_pos_));
  }
  out.insert(out.end(), del_ + del_pos_, del_ + del_pos_ + from_d);
  del_pos_ += from_d;
  if (from_d < k && del_pos_ == del_end_) {
    vector_sink sink{out};
    extract(sink, k - from_d, limit);
  }
}

} // namespace flow::containers
