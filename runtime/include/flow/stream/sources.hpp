#pragma once
// Source nodes: generate (count elements from a function of the index), range, scan (an
// in-memory array, or anything with begin/end such as std::vector), read (a binary file
// of T), queue_below (a priority queue's items before a limit). A
// flow::containers::vector is scanned with its own v.scan(), which is a node.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "flow/io/typed_file.hpp"
#include "flow/pull.hpp"
#include "flow/stream/node.hpp"

namespace flow::stream {

/// fn(0), fn(1), ..., fn(count-1), each called exactly once and in order (fn may keep
/// state, e.g. a random generator).
template <class Fn> class generate_node {
public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fn&, std::uint64_t>>;

  generate_node(std::uint64_t count, Fn fn) : count_(count), fn_(std::move(fn)) {
    if (count_ > 0) current_ = fn_(std::uint64_t{0});
  }
  bool empty() const noexcept { return index_ == count_; }
  const value_type& operator*() const noexcept { return current_; }
  const value_type* operator->() const noexcept { return &current_; }
  generate_node& operator++() {
    if (++index_ < count_) current_ = fn_(index_);
    return *this;
  }
  /// Elements not yet consumed.
  std::uint64_t remaining() const noexcept { return count_ - index_; }

private:
  std::uint64_t count_;
  std::uint64_t index_ = 0;
  Fn fn_;
  value_type current_{};
};

template <class Fn> generate_node<Fn> generate(std::uint64_t count, Fn fn) {
  return generate_node<Fn>(count, std::move(fn));
}

/// first, first+1, ..., last-1.
template <class T = std::uint64_t> class range_node {
public:
  using value_type = T;
  range_node(T first, T last) : current_(first), last_(last) {}
  bool empty() const noexcept { return !(current_ < last_); }
  const T& operator*() const noexcept { return current_; }
  range_node& operator++() {
    ++current_;
    return *this;
  }

private:
  T current_, last_;
};

template <class T> range_node<T> range(T first, T last) { return range_node<T>(first, last); }

/// The elements of a contiguous in-memory range (not copied: it must outlive the node).
template <class T> class scan_node {
public:
  using value_type = T;
  explicit scan_node(std::span<const T> items) : pos_(items.data()), end_(items.data() + items.size()) {}
  bool empty() const noexcept { return pos_ == end_; }
  const T& operator*() const noexcept { return *pos_; }
  const T* operator->() const noexcept { return pos_; }
  scan_node& operator++() {
    ++pos_;
    return *this;
  }
  std::span<const T> batch() const noexcept { return {pos_, static_cast<std::size_t>(end_ - pos_)}; }
  void advance(std::size_t n) noexcept { pos_ += n; }

private:
  const T* pos_;
  const T* end_;
};

template <class T> scan_node<T> scan(std::span<const T> items) { return scan_node<T>(items); }
template <class C>
auto scan(const C& container) -> scan_node<typename C::value_type>
  requires requires { container.data(); container.size(); }
{
  return scan_node<typename C::value_type>(
      std::span<const typename C::value_type>(container.data(), container.size()));
}

/// The elements of a binary file of T (no header; see flow/io/typed_file.hpp), read
/// ahead in large aligned chunks, O_DIRECT by default. Throws open_error /
/// file_format_error at construction.
template <class T> class read_node : public pull_through<read_node<T>, T> {
public:
  explicit read_node(const std::string& path, std::size_t memory_bytes = io::default_typed_file_memory,
                     bool direct = true)
      : in_(std::make_unique<io::file_reader<T>>(path, memory_bytes, direct)) {}
  /// Elements in the file.
  std::uint64_t size() const noexcept { return in_->size(); }

private:
  friend pull_through<read_node, T>;
  io::file_reader<T>& inner() const noexcept { return *in_; }

  std::unique_ptr<io::file_reader<T>> in_;
};

template <class T>
read_node<T> read(const std::string& path, std::size_t memory_bytes = io::default_typed_file_memory,
                  bool direct = true) {
  return read_node<T>(path, memory_bytes, direct);
}

/// The items of a priority queue that come before a limit item, smallest first, taken out
/// of the queue as the stream goes — a script's `q.pop_below(limit)`, the limit interface
/// of the bulk-parallel paper: they come out in bulks that double up to memory_bytes (its
/// plan's buffer), and while the stream runs the queue takes pushes of items at or after
/// the limit only (q.push throws on another, naming `where`), so the items it puts out
/// never depend on the pushes its consumers make. close() (or the destructor) ends it: items before the
/// limit that were not taken (after a `break`) stay in the queue; nothing is read after it.
template <class Q> class queue_below_node {
public:
  using value_type = typename Q::value_type;
  queue_below_node(Q& q, const value_type& limit, std::size_t memory_bytes, const char* where) : q_(&q) {
    q.limit_begin(limit, std::max<std::size_t>(1, memory_bytes / sizeof(value_type)), where);
  }
  queue_below_node(const queue_below_node&) = delete;
  queue_below_node& operator=(const queue_below_node&) = delete;
  ~queue_below_node() {
    try {
      close();
    } catch (...) { // unwinding already: the first error is the one reported
    }
  }
  /// Takes the next item out of the queue when there is one: an item is gone from the
  /// queue once the stream shows it (a loop that breaks at it has taken it).
  bool empty() const {
    if (!held_ && !q_->limit_empty()) {
      current_ = q_->limit_top();
      q_->limit_pop();
      held_ = true;
    }
    return !held_;
  }
  const value_type& operator*() const { return current_; }
  const value_type* operator->() const { return &current_; }
  queue_below_node& operator++() {
    held_ = false;
    return *this;
  }
  void close() {
    if (Q* q = std::exchange(q_, nullptr)) q->limit_end();
  }

private:
  Q* q_;
  mutable value_type current_{};
  mutable bool held_ = false;
};

template <class Q>
queue_below_node<Q> queue_below(Q& q, const typename Q::value_type& limit, std::size_t memory_bytes,
                                const char* where = nullptr) {
  return queue_below_node<Q>(q, limit, memory_bytes, where);
}

} // namespace flow::stream
