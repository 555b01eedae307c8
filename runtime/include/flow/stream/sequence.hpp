#pragma once
// Stages that look at an element's position in its stream: window (the last N elements
// as an array), sample (a Bernoulli sample decided by the seed and the position) and
// enumerate (each element with its position). Each keeps its rule in a small object
// that generated programs push elements through, and has a pull node built on it for
// when a merge, join or zip reads the stream side by side.
//
//   auto w = flow::stream::window<3>(in);                        // std::array<T, 3>s
//   auto s = flow::stream::sample(in, flow::stream::bernoulli_sample(0.01, seed, 7));
//   auto e = flow::stream::enumerate(in, [](std::uint64_t i, const T& x) { return R{i, x}; });
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "flow/stream/node.hpp"
#include "flow/stream/transform.hpp"

namespace flow::stream {

/// The last N elements pushed: push(x) is true from the N-th element on, and last() is
/// then the N most recent, oldest first. The ring lives on the heap (N may be large).
template <class T, std::size_t N> class last_n {
  static_assert(N > 0, "a window holds at least one element");

public:
  last_n() : ring_(N) {}
  bool push(const T& x) {
    ring_[next_] = x;
    next_ = next_ + 1 == N ? 0 : next_ + 1;
    if (seen_ < N) ++seen_;
    return seen_ == N;
  }
  std::array<T, N> last() const {
    std::array<T, N> out;
    for (std::size_t i = 0, at = next_; i < N; ++i, at = at + 1 == N ? 0 : at + 1) out[i] = ring_[at];
    return out;
  }

private:
  std::vector<T> ring_;
  std::size_t next_ = 0, seen_ = 0;
};

/// window<N>(in): for each element from the N-th on, the array of the last N.
template <std::size_t N, class In> class window_node {
  using input_t = std::remove_cvref_t<In>;

public:
  using value_type = std::array<value_t<input_t>, N>;

  explicit window_node(In&& in) : in_(std::forward<In>(in)) { advance(); }
  bool empty() const { return empty_; }
  const value_type& operator*() const noexcept { return current_; }
  window_node& operator++() {
    advance();
    return *this;
  }

private:
  void advance() {
    for (; !in_.empty(); ++in_)
      if (last_.push(*in_)) {
        current_ = last_.last();
        ++in_;
        return;
      }
    empty_ = true;
  }
  input_storage<In> in_;
  last_n<value_t<input_t>, N> last_;
  value_type current_{};
  bool empty_ = false;
};

template <std::size_t N, class In> window_node<N, In> window(In&& in) { return window_node<N, In>(std::forward<In>(in)); }

/// A Bernoulli sample: each element is kept with probability `fraction`, decided by a
/// function of the program's seed, the stage's number and the element's position alone
/// (not by a generator's state), so a run with the same seed keeps the same elements,
/// however the stream is read. Exactly, with mix(x) one step of splitmix64:
///
///   key = mix(seed ^ mix(stage))
///   keep element i (0, 1, ...)  iff  mix(key + i) < fraction * 2^64
///   (fraction 1 keeps every element, 0 none)
///
///   # Python reference
///   M = (1 << 64) - 1
///   def mix(x):
///       z = (x + 0x9e3779b97f4a7c15) & M
///       z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
///       z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
///       return z ^ (z >> 31)
///   def kept(i, fraction, seed, stage):
///       key = mix(seed ^ mix(stage))
///       return fraction >= 1 or mix((key + i) & M) < int(fraction * 2.0**64)
class bernoulli_sample {
public:
  bernoulli_sample(double fraction, std::uint64_t seed, std::uint64_t stage)
      : all_(fraction >= 1), threshold_(fraction > 0 && fraction < 1 ? static_cast<std::uint64_t>(fraction * 0x1p64) : 0),
        key_(mix(seed ^ mix(stage))) {}
  /// Whether the next element is kept.
  bool admit() { return all_ || mix(key_ + position_++) < threshold_; }

  static constexpr std::uint64_t mix(std::uint64_t x) {
    std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

private:
  bool all_;
  std::uint64_t threshold_;
  std::uint64_t key_;
  std::uint64_t position_ = 0;
};

/// The elements of `in` that `rule` (a bernoulli_sample) keeps.
template <class In> auto sample(In&& in, bernoulli_sample rule) {
  return filter(std::forward<In>(in), [rule](const auto&) mutable { return rule.admit(); });
}

/// make(i, x) for the i-th element x of `in` (from 0): enumerate's record of both.
template <class In, class Make> auto enumerate(In&& in, Make make) {
  return map(std::forward<In>(in),
             [make = std::move(make), i = std::uint64_t{0}](const auto& x) mutable { return make(i++, x); });
}

} // namespace flow::stream
