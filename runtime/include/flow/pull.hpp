#pragma once
// The pull interface of a stream node (flow/stream/node.hpp: empty, *, ->, ++, batch,
// advance) written once for the two kinds of node that would otherwise each repeat it.
// Both are bases of the node that names itself as Self (CRTP), so every call inlines:
//   pull_from_span<Self, T>  elements ready in memory in [pos_, end_), which
//                            Self::refill() sets again when they run out (a merger's
//                            output buffer, the block being read);
//   pull_through<Self, T>    a node that hands out the elements of another one,
//                            Self::inner() (a sort around its merger, a file read
//                            around its reader).
// Self makes its base a friend when refill() or inner() is private.
#include <cstddef>
#include <span>

namespace flow {

template <class Self, class T> class pull_from_span {
public:
  using value_type = T;
  bool empty() const noexcept { return pos_ == end_; }
  const T& operator*() const noexcept { return *pos_; }
  const T* operator->() const noexcept { return pos_; }
  Self& operator++() {
    if (++pos_ == end_) self().refill();
    return self();
  }
  /// The elements ready in memory (never empty unless the stream is).
  std::span<const T> batch() const noexcept { return {pos_, static_cast<std::size_t>(end_ - pos_)}; }
  /// Skips n <= batch().size() elements.
  void advance(std::size_t n) {
    pos_ += n;
    if (pos_ == end_) self().refill();
  }

protected:
  /// The elements ready; refill() leaves them empty (pos_ == end_) at the end.
  const T* pos_ = nullptr;
  const T* end_ = nullptr;

private:
  Self& self() noexcept { return static_cast<Self&>(*this); }
};

template <class Self, class T> class pull_through {
public:
  using value_type = T;
  bool empty() const noexcept { return in().empty(); }
  const T& operator*() const noexcept { return *in(); }
  const T* operator->() const noexcept { return &*in(); }
  Self& operator++() {
    ++in();
    return static_cast<Self&>(*this);
  }
  std::span<const T> batch() const noexcept { return in().batch(); }
  void advance(std::size_t n) { in().advance(n); }

private:
  decltype(auto) in() noexcept { return static_cast<Self&>(*this).inner(); }
  decltype(auto) in() const noexcept { return static_cast<const Self&>(*this).inner(); }
};

} // namespace flow
