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
// pass holds, the same at any thread count where the table holds the right input (the
// batch buffers grow a little with the threads, so a tight pass may hold fewer).
//
// Threads: the left input is probed in batches, each of `threads` threads a contiguous
// share of a batch into an output buffer of its own, put out share by share.
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
  /// team, the ranges of the first byte are sorted on its threads.
  void seal(algo::thread_team* team = nullptr) {
    buckets_ = static_cast<std::size_t>(plan::hash_join_buckets(count_));
    shift_ = 64;
    for (std::size_t b = buckets_; b > 1; b /= 2) --shift_;
    if (team && team->size() > 1 && count_ > 32 && 64 > shift_) {
      std::size_t start[257];
      partition(data_, count_, 56, start);
      const unsigned threads = team->size();
      team->run([&](unsigned t) {
        for (std::size_t d = t; d < 256; d += threads) sort_by_hash(data_ + start[d], start[d + 1] - start[d], 48, false);
      });
    } else {
      sort_by_hash(data_, count_, 56, false);
    }
    directory_ = io::aligned_buffer((buckets_ + 1) * sizeof(std::uint32_t));
    huge_pages(directory_);
    dir_ = reinterpret_cast<std::uint32_t*>(directory_.data());
    std::size_t at = 0;
    for (std::size_t b = 0; b < buckets_; ++b) {
      while (at < count_ && bucket(hash_(data_[at])) < b) ++at;
      dir_[b] = static_cast<std::uint32_t>(at);
    }
    dir_[buckets_] = static_cast<std::uint32_t>(count_);
    for (std::size_t b = 0; b < buckets_; ++b) // the buckets a probe searches: in hash order
      if (dir_[b + 1] - dir_[b] > scanned) sort_by_hash(data_ + dir_[b], dir_[b + 1] - dir_[b], std::max(shift_ - 8, 0), true);
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
  /// A share's probes prefetch the bucket entry this many left elements ahead, and the
  /// bucket half as far, so that the table's cache misses overlap.
  static constexpr std::size_t ahead = 16;

public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, const L&, const R&>>;

  hash_join_node(Left&& left, Right&& right, LeftHash left_hash, RightHash right_hash, Compare compare, Fn fn,
                 std::size_t memory_bytes, std::size_t block_bytes, unsigned threads = 1,
                 mng::block_manager& bm = mng::block_manager::global())
      : left_(std::forward<Left>(left)), right_(std::forward<Right>(right)), left_hash_(std::move(left_hash)),
        compare_(std::move(compare)), fn_(std::move(fn)), block_bytes_(block_bytes), bm_(bm),
        threads_(std::max(1u, threads)) {
    if (block_bytes == 0 || block_bytes % io::buffer_alignment != 0 || block_bytes < std::max(sizeof(L), sizeof(R))) {
      throw std::invalid_argument("flow: hash_join: the block size must be a positive multiple of 4096 bytes holding "
                                  "an element of each input, got " + std::to_string(block_bytes));
    }
    const std::uint64_t probe = plan::hash_join_probe_bytes(threads_, sizeof(L), sizeof(value_type), block_bytes);
    if (memory_bytes < plan::hash_join_min_memory(block_bytes) + probe) {
      throw std::invalid_argument("flow: hash_join: needs a memory budget of at least 5 blocks (" +
                                  std::to_string(plan::hash_join_min_memory(block_bytes)) + " bytes: four to spill, "
                                  "one of table) and " + std::to_string(probe) + " bytes for " +
                                  std::to_string(threads_) + " threads, got " + std::to_string(memory_bytes));
    }
    const std::uint64_t capacity = std::min<std::uint64_t>(
        plan::hash_join_capacity(sizeof(R), memory_bytes - probe, block_bytes), plan::hash_join_max_elements);
    start_batches();
    table_ = std::make_unique<table_type>(static_cast<std::size_t>(capacity), std::move(right_hash));
    // The first pass: the table from the right input; what it cannot hold goes to disk.
    for (; !right_.empty(); ++right_) {
      if (table_->full()) {
        right_rest_.emplace(2 * block_bytes_, block_bytes_, bm_);
        for (; !right_.empty(); ++right_) right_rest_->push_back(*right_);
        left_copy_.emplace(2 * block_bytes_, block_bytes_, bm_);
        break;
      }
      table_->push(*right_);
    }
    if (table_->size() == 0) { // nothing to join with
      (void)stream::count(left_);
      done_ = true;
      return;
    }
    table_->seal(team_.get());
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
  // The left elements are probed a batch at a time, each thread a contiguous share of it
  // into an output buffer of its own; the outputs are then put out share by share, which
  // is the order of one thread. A share whose buffer fills stops where it is and goes on
  // (on this thread) once its outputs are out.
  struct share {
    std::size_t next = 0, end = 0; // its elements of the batch not finished
    std::uint32_t at = 0, stop = 0; // where it stopped in the bucket of `next`
    bool inside = false;            // it stopped in next's bucket
    std::size_t count = 0;          // outputs in `out`
    value_type* out = nullptr;
  };
  static_assert(std::is_trivially_copyable_v<value_type>,
                "a hash join keeps its outputs in buffers: they must be trivially copyable");

  void start_batches() {
    batch_elements_ = static_cast<std::size_t>(plan::hash_join_batch_elements(sizeof(L), block_bytes_));
    outputs_ = static_cast<std::size_t>(plan::hash_join_outputs_per_thread(threads_, batch_elements_));
    batch_ = io::aligned_buffer(batch_elements_ * sizeof(L));
    hashes_ = io::aligned_buffer(batch_elements_ * sizeof(std::uint64_t));
    shares_.resize(threads_);
    for (share& s : shares_) {
      out_.emplace_back(outputs_ * sizeof(value_type));
      s.out = std::launder(reinterpret_cast<value_type*>(out_.back().data()));
    }
    team_ = std::make_unique<algo::thread_team>(threads_);
  }
  L* batch() const noexcept { return std::launder(reinterpret_cast<L*>(batch_.data())); }
  std::uint64_t* hashes() const noexcept { return reinterpret_cast<std::uint64_t*>(hashes_.data()); }

  // The next output: the current share's next, else the next share's, else the next
  // batch's, or the next pass's, or the end.
  void find() {
    while (true) {
      if (emitting_ < shares_.size()) {
        share& s = shares_[emitting_];
        if (emitted_ < s.count) {
          current_ = s.out[emitted_++];
          return;
        }
        emitted_ = 0;
        if (s.next < s.end) { // its buffer filled: on with it here
          probe_share(s);
          continue;
        }
        ++emitting_;
        continue;
      }
      if (!next_batch() && !(next_pass() && next_batch())) {
        done_ = true;
        return;
      }
    }
  }

  // Takes the next batch from the current source and probes it on all threads. False at
  // the end of the pass.
  bool next_batch() {
    L* xs = batch();
    std::size_t n = 0;
    if (!left_read_) { // the first pass: the left input itself
      for (; n < batch_elements_ && !left_.empty(); ++n, ++left_) {
        xs[n] = *left_;
        if (left_copy_) left_copy_->push_back(xs[n]);
      }
    } else {
      for (; n < batch_elements_ && !left_read_->empty(); ++n, ++*left_read_) xs[n] = **left_read_;
    }
    if (n == 0) return false;
    const std::size_t per = (n + threads_ - 1) / threads_;
    for (std::size_t t = 0; t < shares_.size(); ++t) {
      share& s = shares_[t];
      s.next = std::min(n, t * per);
      s.end = std::min(n, (t + 1) * per);
      s.inside = false;
    }
    team_->run([&](unsigned t) {
      share& s = shares_[t];
      const std::uint64_t* end = hashes() + s.end;
      std::uint64_t* h = hashes() + s.next;
      for (const L* x = xs + s.next; h != end; ++x, ++h) *h = left_hash_(*x);
      probe_share(s);
    });
    emitting_ = emitted_ = 0;
    return true;
  }

  // Probes a share's elements from where it is until its buffer fills or it ends.
  void probe_share(share& s) {
    const L* xs = batch();
    const std::uint64_t* hs = hashes();
    const std::uint32_t* dir = table_->directory();
    const R* data = table_->data();
    constexpr std::size_t lead = ahead;
    s.count = 0;
    for (std::size_t i = s.next; i < s.end; ++i) {
      if (i + lead < s.end) __builtin_prefetch(dir + table_->bucket(hs[i + lead]));
      if (i + lead / 2 < s.end) __builtin_prefetch(data + dir[table_->bucket(hs[i + lead / 2])]);
      std::uint32_t at, stop;
      if (s.inside) {
        at = s.at;
        stop = s.stop;
        s.inside = false;
      } else {
        const std::size_t b = table_->bucket(hs[i]);
        at = dir[b];
        stop = dir[b + 1];
        if (stop - at > table_type::scanned) table_->narrow(hs[i], at, stop);
      }
      for (; at < stop; ++at) {
        if (compare_(xs[i], data[at]) != 0) continue;
        if (s.count == outputs_) {
          s.next = i;
          s.at = at;
          s.stop = stop;
          s.inside = true;
          return;
        }
        s.out[s.count++] = fn_(xs[i], data[at]);
      }
    }
    s.next = s.end;
  }

  // After a pass over the left input: fills the table with the next part of the right
  // input's rest and reads the left input again. False when the rest is all joined.
  bool next_pass() {
    if (!right_rest_) return false;
    if (!right_read_) right_read_.reset(new auto(right_rest_->scan()));
    if (right_read_->empty()) return false;
    table_->clear();
    for (; !right_read_->empty() && !table_->full(); ++*right_read_) table_->push(**right_read_);
    table_->seal(team_.get());
    left_read_.reset(); // its buffers go back before the next read takes its own
    left_read_.reset(new auto(left_copy_->scan()));
    ++passes_;
    return true;
  }

  input_storage<Left> left_;
  input_storage<Right> right_;
  LeftHash left_hash_;
  Compare compare_;
  Fn fn_;
  std::size_t block_bytes_;
  mng::block_manager& bm_;
  std::unique_ptr<table_type> table_;
  // The passes after the first: the right input's rest and a copy of the left input, on disk.
  std::optional<containers::vector<R>> right_rest_;
  std::optional<containers::vector<L>> left_copy_;
  std::unique_ptr<typename containers::vector<R>::reader> right_read_; // (readers do not move)
  std::unique_ptr<typename containers::vector<L>::reader> left_read_;
  const unsigned threads_;
  // a batch of left elements, their hashes, the threads' shares and outputs
  std::size_t batch_elements_ = 0, outputs_ = 0;
  io::aligned_buffer batch_, hashes_;
  std::vector<io::aligned_buffer> out_;
  std::vector<share> shares_;
  std::size_t emitting_ = 0, emitted_ = 0; // the share being put out, and its outputs so far
  std::unique_ptr<algo::thread_team> team_;
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
