#pragma once
// hash_join: the inner join of two streams in no key order, through a hash table of the
// right ("build") input; the left ("probe") input streams past it. The compiler uses it
// where nothing after the join depends on the order of its output (a reduce, through maps
// and filters): neither input is sorted, which is the whole cost of a merge join
// (flow/stream/join.hpp) on unsorted inputs.
//
//   auto j = flow::stream::hash_join(orders, customers,
//       [](const Order& o) { return hash(o.cust); }, [](const Customer& c) { return hash(c.id); },
//       [](const Order& o, const Customer& c) { return o.cust < c.id ? -1 : o.cust > c.id; },
//       [](const Order& o, const Customer& c) { return Row{o.amount, c.nation}; },
//       memory_bytes, block_bytes);
//   for (; !j.empty(); ++j) use(*j);
//
// Output: fn(l, r) for every left element l and right element r with compare(l, r) == 0,
// each pair once, in no key order: pass by pass, the left elements in input order, each
// with its partners in the table's order. So the order is fixed by the inputs and what a
// pass holds, which does not depend on the thread count: the same at any --threads.
//
// Threads: the left input is probed a batch at a time, in chunks that the `threads`
// threads take as they come, each chunk's outputs into a buffer of its own, put out
// chunk by chunk. Two batches: while this node's thread puts one out (and the stages
// after it run) and reads the next, the team's other threads probe the one after, and
// this thread takes the chunks they have not begun before it puts that one out — so
// the reading, the probing and what reads the join overlap (the asynchronous stage of
// the parallel pipelining paper, inside the node).
//
// Memory (flow/plan/join_model.hpp has the arithmetic): memory_bytes holds the table —
// the right elements sorted by hash and a directory of their buckets — four block
// buffers, and the batch buffers. A right input that it cannot hold is joined in passes: the first fills the
// table, writes the rest of the right input to disk, and writes the left input to disk
// as it probes; each further pass fills the table from the right input's rest and
// probes with the left input read back. So a right input of any size joins in any
// memory of at least 5 blocks, costing I/O but never failing and never losing a row,
// and a key held by many right elements costs no more than their outputs. Both inputs
// are read to their end once.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "flow/algo/parallel.hpp"
#include "flow/containers/vector.hpp"
#include "flow/io/buffer.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/join_model.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

namespace detail {

/// The build side's table: its elements in one buffer, sorted by hash when the pass's
/// elements are all in (seal()), and a directory of buckets — the elements whose hashes
/// begin with the same bits — so that a probe reads a bucket's first position and its
/// elements. Equal keys hash alike, so their elements lie side by side: a key held by
/// many elements costs a probe of another key in its bucket a binary search, not a scan.
template <class R, class Hash> class hash_join_table {
public:
  hash_join_table(std::size_t capacity, Hash hash)
      : capacity_(capacity), buffer_(capacity * sizeof(R)), hash_(std::move(hash)) {
    data_ = std::launder(reinterpret_cast<R*>(buffer_.data()));
    huge_pages(buffer_);
  }

  bool full() const noexcept { return count_ == capacity_; }
  void push(const R& x) noexcept { data_[count_++] = x; }
  std::size_t size() const noexcept { return count_; }

  /// Sorts the elements by hash and makes the directory: the table can be probed. With a
  /// team, the ranges of the first byte are sorted, and their buckets' directory entries
  /// made, on its threads.
  void seal(algo::thread_team* team = nullptr) {
    buckets_ = static_cast<std::size_t>(plan::hash_join_buckets(count_));
    shift_ = 64;
    for (std::size_t b = buckets_; b > 1; b /= 2) --shift_;
    directory_ = io::aligned_buffer((buckets_ + 1) * sizeof(std::uint32_t));
    huge_pages(directory_);
    dir_ = reinterpret_cast<std::uint32_t*>(directory_.data());
    dir_[buckets_] = static_cast<std::uint32_t>(count_);
    if (team && team->size() > 1 && count_ > 32 && shift_ <= 56) { // (each first byte: whole buckets)
      std::size_t start[257];
      partition(data_, count_, 56, start);
      const unsigned threads = team->size();
      const std::size_t per_byte = buckets_ / 256;
      team->run([&](unsigned t) {
        for (std::size_t d = t; d < 256; d += threads) {
          sort_by_hash(data_ + start[d], start[d + 1] - start[d], 48, false);
          index(start[d], start[d + 1], d * per_byte, (d + 1) * per_byte);
        }
      });
    } else {
      sort_by_hash(data_, count_, 56, false);
      index(0, count_, 0, buckets_);
    }
  }
  /// Empties the table for the next pass.
  void clear() noexcept {
    count_ = 0;
    directory_.reset();
    dir_ = nullptr;
  }

  std::size_t bucket(std::uint64_t h) const noexcept { return shift_ == 64 ? 0 : static_cast<std::size_t>(h >> shift_); }
  const std::uint32_t* directory() const noexcept { return dir_; }
  const R* data() const noexcept { return data_; }
  /// A bucket with more elements than this is searched for a probe's hash (a key held by
  /// many elements fills its bucket: a probe of another key must not walk past them);
  /// a probe scans a smaller one.
  static constexpr std::uint32_t scanned = 64;
  /// Narrows a large bucket [lo, hi) to its elements of hash h.
  void narrow(std::uint64_t h, std::uint32_t& lo, std::uint32_t& hi) const {
    auto hash_less = [&](const R& x, std::uint64_t v) { return hash_(x) < v; };
    const R* first = std::lower_bound(static_cast<const R*>(data_ + lo), static_cast<const R*>(data_ + hi), h, hash_less);
    std::uint32_t at = static_cast<std::uint32_t>(first - data_), end = at;
    while (end < hi && hash_(data_[end]) == h) ++end;
    lo = at;
    hi = end;
  }

private:
  // The directory entries of buckets [first, last), whose elements are [from, to) (sorted
  // into their buckets); a bucket that a probe searches gets sorted by hash.
  void index(std::size_t from, std::size_t to, std::size_t first, std::size_t last) {
    std::size_t at = from;
    for (std::size_t b = first; b < last; ++b) {
      while (at < to && bucket(hash_(data_[at])) < b) ++at;
      dir_[b] = static_cast<std::uint32_t>(at);
    }
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t lo = dir_[b], hi = b + 1 < last ? dir_[b + 1] : to;
      if (hi - lo > scanned) sort_by_hash(data_ + lo, hi - lo, std::max(shift_ - 8, 0), true);
    }
  }
  // Every probe reads the table at random: in pages of 4 KiB, nearly each read would
  // also miss the TLB. (Advice: where the system has no huge pages, nothing changes.)
  static void huge_pages(io::aligned_buffer& b) noexcept {
#ifdef MADV_HUGEPAGE
    if (b.size() >= (std::size_t{2} << 20)) (void)::madvise(b.data(), b.size(), MADV_HUGEPAGE);
#endif
  }
  // Moves a's n elements into the ranges of their hash's byte at `shift`, range d from
  // start[d] to start[d + 1]: counts the 256 digits, then moves each element into its
  // digit's range (the American flag sort's step).
  void partition(R* a, std::size_t n, int shift, std::size_t (&start)[257]) {
    auto digit = [&](const R& x) { return static_cast<std::size_t>((hash_(x) >> shift) & 255); };
    std::size_t head[256] = {}, tail[256];
    for (std::size_t i = 0; i < n; ++i) ++head[digit(a[i])];
    std::size_t at = 0;
    for (std::size_t d = 0; d < 256; ++d) {
      const std::size_t c = head[d];
      start[d] = head[d] = at;
      at += c;
      tail[d] = at;
    }
    start[256] = n;
    for (std::size_t d = 0; d < 256; ++d) {
      while (head[d] < tail[d]) {
        R x = a[head[d]];
        for (std::size_t e = digit(x); e != d; e = digit(x)) std::swap(x, a[head[e]++]);
        a[head[d]++] = x;
      }
    }
  }
  // In place, by the hash's bits from `shift` up, a byte a level, the highest first (`all`:
  // to the last bit; else only until each range lies in one bucket).
  void sort_by_hash(R* a, std::size_t n, int shift, bool all) {
    if (!all && shift + 8 <= shift_) return;
    if (n <= 32) {
      for (std::size_t i = 1; i < n; ++i) {
        const R x = a[i];
        const std::uint64_t hx = hash_(x);
        std::size_t j = i;
        for (; j > 0 && hash_(a[j - 1]) > hx; --j) a[j] = a[j - 1];
        a[j] = x;
      }
      return;
    }
    std::size_t start[257];
    partition(a, n, shift, start);
    if (shift == 0) return;
    for (std::size_t d = 0; d < 256; ++d) sort_by_hash(a + start[d], start[d + 1] - start[d], std::max(shift - 8, 0), all);
  }

  std::size_t capacity_;
  io::aligned_buffer buffer_, directory_;
  R* data_ = nullptr;
  std::uint32_t* dir_ = nullptr;
  Hash hash_;
  std::size_t count_ = 0, buckets_ = 1;
  int shift_ = 64;
};

} // namespace detail

template <class Left, class Right, class LeftHash, class RightHash, class Compare, class Fn> class hash_join_node {
  using L = value_t<Left>;
  using R = value_t<Right>;
  using table_type = detail::hash_join_table<R, RightHash>;
  static_assert(std::is_trivially_copyable_v<L> && std::is_trivially_copyable_v<R>,
                "a hash join may write its inputs to disk as bytes: they must be trivially copyable");
  /// A chunk's probes prefetch the bucket entry this many left elements ahead, and the
  /// bucket half as far, so that the table's cache misses overlap.
  static constexpr std::size_t ahead = 16;

public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, const L&, const R&>>;

  hash_join_node(Left&& left, Right&& right, LeftHash left_hash, RightHash right_hash, Compare compare, Fn fn,
                 std::size_t memory_bytes, std::size_t block_bytes, unsigned threads = 1,
                 mng::block_manager& bm = mng::block_manager::global())
      : left_(std::forward<Left>(left)), right_(std::forward<Right>(right)), block_bytes_(block_bytes), bm_(bm) {
    if (block_bytes == 0 || block_bytes % io::buffer_alignment != 0 || block_bytes < std::max(sizeof(L), sizeof(R))) {
      throw std::invalid_argument("flow: hash_join: the block size must be a positive multiple of 4096 bytes holding "
                                  "an element of each input, got " + std::to_string(block_bytes));
    }
    const std::uint64_t probe = plan::hash_join_probe_bytes(sizeof(L), sizeof(value_type), block_bytes);
    if (memory_bytes < plan::hash_join_min_memory(block_bytes) + probe) {
      throw std::invalid_argument("flow: hash_join: needs a memory budget of at least 5 blocks (" +
                                  std::to_string(plan::hash_join_min_memory(block_bytes)) + " bytes: four to spill, "
                                  "one of table) and " + std::to_string(probe) + " bytes for its batches, got " +
                                  std::to_string(memory_bytes));
    }
    const std::uint64_t capacity = std::min<std::uint64_t>(
        plan::hash_join_capacity(sizeof(R), memory_bytes - probe, block_bytes), plan::hash_join_max_elements);
    p_ = std::make_unique<prober>(std::move(left_hash), std::move(compare), std::move(fn), block_bytes,
                                  std::max(1u, threads));
    p_->table = std::make_unique<table_type>(static_cast<std::size_t>(capacity), std::move(right_hash));
    table_type& table = *p_->table;
    // The first pass: the table from the right input; what it cannot hold goes to disk.
    for (; !right_.empty(); ++right_) {
      if (table.full()) {
        right_rest_.emplace(2 * block_bytes_, block_bytes_, bm_);
        for (; !right_.empty(); ++right_) right_rest_->push_back(*right_);
        left_copy_.emplace(2 * block_bytes_, block_bytes_, bm_);
        break;
      }
      table.push(*right_);
    }
    if (table.size() == 0) { // nothing to join with
      (void)stream::count(left_);
      done_ = true;
      return;
    }
    table.seal(&p_->team);
    find();
  }
  bool empty() const noexcept { return done_; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  hash_join_node& operator++() {
    find();
    return *this;
  }

  /// Passes over the left input so far (1 while the table held the whole right input).
  std::uint64_t passes() const noexcept { return passes_; }

private:
  // A batch's chunk: its left elements [next, end) not finished, and its outputs. A chunk
  // whose buffer fills stops where it is and goes on (on the thread that puts it out) once
  // its outputs are out.
  struct chunk {
    std::size_t next = 0, end = 0;
    std::uint32_t at = 0, stop = 0; // where it stopped in the bucket of `next`
    bool inside = false;            // it stopped in next's bucket
    std::size_t count = 0;          // outputs in `out`
    value_type* out = nullptr;
  };
  static_assert(std::is_trivially_copyable_v<value_type>,
                "a hash join keeps its outputs in buffers: they must be trivially copyable");
  // A batch of left elements, their hashes and its chunks' outputs.
  struct batch {
    io::aligned_buffer elements, hashes, outputs;
    std::vector<chunk> chunks;
    std::size_t used = 0;                // chunks with elements
    std::atomic<std::size_t> claimed{0}; // chunks a thread took
    L* xs() const noexcept { return std::launder(reinterpret_cast<L*>(elements.data())); }
    std::uint64_t* hs() const noexcept { return reinterpret_cast<std::uint64_t*>(hashes.data()); }
  };
  // What the threads probing a batch use, on the heap: moving the node (into the stage
  // that reads it) must not move what a thread is reading. Two batches: the threads probe
  // one while the node puts out the other.
  struct prober {
    prober(LeftHash h, Compare c, Fn f, std::size_t block_bytes, unsigned threads)
        : left_hash(std::move(h)), compare(std::move(c)), fn(std::move(f)),
          batch_elements(static_cast<std::size_t>(plan::hash_join_batch_elements(sizeof(L), sizeof(value_type), block_bytes))),
          chunk_elements(static_cast<std::size_t>(plan::hash_join_chunk_elements(batch_elements))),
          outputs(static_cast<std::size_t>(plan::hash_join_outputs_per_chunk(batch_elements))), team(threads) {
      const std::size_t chunks = static_cast<std::size_t>(plan::hash_join_chunks(batch_elements));
      for (batch& b : batches) {
        b.elements = io::aligned_buffer(batch_elements * sizeof(L));
        b.hashes = io::aligned_buffer(batch_elements * sizeof(std::uint64_t));
        b.outputs = io::aligned_buffer(chunks * outputs * sizeof(value_type));
        b.chunks.resize(chunks);
        for (std::size_t c = 0; c < chunks; ++c)
          b.chunks[c].out = std::launder(reinterpret_cast<value_type*>(b.outputs.data())) + c * outputs;
      }
    }
    LeftHash left_hash;
    Compare compare;
    Fn fn;
    std::unique_ptr<table_type> table;
    const std::size_t batch_elements, chunk_elements, outputs;
    batch batches[2];
    bool flying = false; // the team's helpers probe the batch that is not put out
    // Last, so destroyed first: its destructor lets the helpers finish the task they run,
    // so a batch still in flight (the node destroyed early, or by an error, also one
    // thrown from its constructor) is probed to its end before its buffers, the table and
    // the functions go.
    algo::thread_team team;

    // Probes the chunks of `b` that no thread took yet, one after the other.
    void probe_unclaimed(batch& b) {
      for (std::size_t c; (c = b.claimed.fetch_add(1, std::memory_order_relaxed)) < b.used;) {
        chunk& k = b.chunks[c];
        const L* x = b.xs() + k.next;
        for (std::uint64_t *h = b.hs() + k.next, *end = b.hs() + k.end; h != end; ++x, ++h) *h = left_hash(*x);
        probe(b, k);
      }
    }
    // Probes a chunk's elements from where it is until its buffer fills or it ends.
    void probe(const batch& b, chunk& k) {
      const L* xs = b.xs();
      const std::uint64_t* hs = b.hs();
      const std::uint32_t* dir = table->directory();
      const R* data = table->data();
      constexpr std::size_t lead = ahead;
      k.count = 0;
      for (std::size_t i = k.next; i < k.end; ++i) {
        if (i + lead < k.end) __builtin_prefetch(dir + table->bucket(hs[i + lead]));
        if (i + lead / 2 < k.end) __builtin_prefetch(data + dir[table->bucket(hs[i + lead / 2])]);
        std::uint32_t at, stop;
        if (k.inside) {
          at = k.at;
          stop = k.stop;
          k.inside = false;
        } else {
          const std::size_t bucket = table->bucket(hs[i]);
          at = dir[bucket];
          stop = dir[bucket + 1];
          if (stop - at > table_type::scanned) table->narrow(hs[i], at, stop);
        }
        for (; at < stop; ++at) {
          if (compare(xs[i], data[at]) != 0) continue;
          if (k.count == outputs) {
            k.next = i;
            k.at = at;
            k.stop = stop;
            k.inside = true;
            return;
          }
          k.out[k.count++] = fn(xs[i], data[at]);
        }
      }
      k.next = k.end;
    }
  };

  // The next output: the current chunk's next, else the next chunk's, else the next
  // batch's, or the next pass's, or the end.
  void find() {
    while (true) {
      batch& b = p_->batches[current_batch_];
      if (emitting_ < b.used) {
        chunk& k = b.chunks[emitting_];
        if (emitted_ < k.count) {
          current_ = k.out[emitted_++];
          return;
        }
        emitted_ = 0;
        if (k.next < k.end) { // its buffer filled: on with it here
          p_->probe(b, k);
          continue;
        }
        ++emitting_;
        continue;
      }
      if (!next_batch()) {
        done_ = true;
        return;
      }
    }
  }

  // Makes the next batch the one put out: the one the threads probed meanwhile, or else
  // (at the start of a pass) one read and probed now on all threads; then reads the batch
  // after it and lets the team's helpers probe it while this one is put out. False at
  // the end of the last pass.
  bool next_batch() {
    batch& done = p_->batches[current_batch_];
    if (p_->flying) {
      batch& next = p_->batches[1 - current_batch_];
      const bool more = read(done); // while the helpers probe `next`
      p_->probe_unclaimed(next);
      p_->flying = false;
      p_->team.wait();
      current_batch_ = 1 - current_batch_;
      if (more) fly(done);
    } else {
      if (!read(done) && !(next_pass() && read(done))) return false;
      fly(done);
      p_->probe_unclaimed(done);
      p_->flying = false;
      p_->team.wait();
      batch& after = p_->batches[1 - current_batch_];
      if (read(after)) fly(after);
    }
    emitting_ = emitted_ = 0;
    return true;
  }
  // The team's helpers probe `b` while this thread goes on (and takes what they left).
  void fly(batch& b) {
    p_->flying = true;
    p_->team.start([p = p_.get(), &b](unsigned) { p->probe_unclaimed(b); });
  }

  // Reads the next batch of this pass's left input into `b` and cuts it into chunks.
  // False at the end of the pass.
  bool read(batch& b) {
    L* xs = b.xs();
    std::size_t n = 0;
    if (!left_read_) { // the first pass: the left input itself
      for (; n < p_->batch_elements && !left_.empty(); ++n, ++left_) {
        xs[n] = *left_;
        if (left_copy_) left_copy_->push_back(xs[n]);
      }
    } else {
      for (; n < p_->batch_elements && !left_read_->empty(); ++n, ++*left_read_) xs[n] = **left_read_;
    }
    const std::size_t per = p_->chunk_elements;
    b.used = (n + per - 1) / per;
    for (std::size_t c = 0; c < b.used; ++c) {
      chunk& k = b.chunks[c];
      k.next = c * per;
      k.end = std::min(n, (c + 1) * per);
      k.inside = false;
      k.count = 0;
    }
    b.claimed.store(0, std::memory_order_relaxed);
    return n > 0;
  }

  // After a pass over the left input: fills the table with the next part of the right
  // input's rest and reads the left input again. False when the rest is all joined.
  bool next_pass() {
    if (!right_rest_) return false;
    if (!right_read_) right_read_.reset(new auto(right_rest_->scan()));
    if (right_read_->empty()) return false;
    table_type& table = *p_->table;
    table.clear();
    for (; !right_read_->empty() && !table.full(); ++*right_read_) table.push(**right_read_);
    table.seal(&p_->team);
    left_read_.reset(); // its buffers go back before the next read takes its own
    left_read_.reset(new auto(left_copy_->scan()));
    ++passes_;
    return true;
  }

  input_storage<Left> left_;
  input_storage<Right> right_;
  std::size_t block_bytes_;
  mng::block_manager& bm_;
  std::unique_ptr<prober> p_;
  // The passes after the first: the right input's rest and a copy of the left input, on disk.
  std::optional<containers::vector<R>> right_rest_;
  std::optional<containers::vector<L>> left_copy_;
  std::unique_ptr<typename containers::vector<R>::reader> right_read_; // (readers do not move)
  std::unique_ptr<typename containers::vector<L>::reader> left_read_;
  std::size_t current_batch_ = 0;          // the batch being put out
  std::size_t emitting_ = 0, emitted_ = 0; // its chunk being put out, and that chunk's outputs so far
  std::uint64_t passes_ = 1;
  bool done_ = false;
  value_type current_{};
};

/// hash_join(left, right, left_hash, right_hash, compare, fn, memory_bytes, block_bytes[,
/// threads[, bm]]): the hash_join_node of its arguments (see the top of the file).
/// left_hash(l) and right_hash(r) give equal hashes for equal keys; compare(l, r) == 0
/// for equal keys.
template <class Left, class Right, class LeftHash, class RightHash, class Compare, class Fn>
hash_join_node<Left, Right, LeftHash, RightHash, Compare, Fn>
hash_join(Left&& left, Right&& right, LeftHash left_hash, RightHash right_hash, Compare compare, Fn fn,
          std::size_t memory_bytes, std::size_t block_bytes, unsigned threads = 1,
          mng::block_manager& bm = mng::block_manager::global()) {
  return {std::forward<Left>(left), std::forward<Right>(right), std::move(left_hash), std::move(right_hash),
          std::move(compare), std::move(fn), memory_bytes, block_bytes, threads, bm};
}

} // namespace flow::stream
