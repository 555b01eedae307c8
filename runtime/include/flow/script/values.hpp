#pragma once
// Values in generated programs: checked array indexing, filled arrays, hash and print.
#include <array>
#include <charconv>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "flow/script/error.hpp"

namespace flow::script {

/// A bool as containers that keep elements in std::vector store it: a byte (vector<bool>
/// holds bits, which have no address). Converts to and from bool.
struct stored_bool {
  bool value = false;
  stored_bool() = default;
  stored_bool(bool b) : value(b) {} // NOLINT: implicit, like the bool it stands for
  operator bool() const { return value; }
};

/// a[i] with the index checked.
template <class T, std::size_t N> const T& index(const std::array<T, N>& a, std::uint64_t i, const char* where) {
  if (i >= N) fail(where, "index " + std::to_string(i) + " is out of range for an array of " + std::to_string(N));
  return a[i];
}
template <class T, std::size_t N> T& index(std::array<T, N>& a, std::uint64_t i, const char* where) {
  if (i >= N) fail(where, "index " + std::to_string(i) + " is out of range for an array of " + std::to_string(N));
  return a[i];
}

/// `array a: T[n];` — an in-memory array on the heap whose length is computed when the
/// declaration is reached. Elements start as zeros (or `value`); every index is checked.
template <class T> class heap_array {
public:
  heap_array(std::uint64_t n, const char* name, const char* where) : name_(name) { allocate(n, where); }
  heap_array(std::uint64_t n, const T& value, const char* name, const char* where) : name_(name) {
    allocate(n, where);
    fill(value);
  }
  heap_array(const heap_array&) = delete;
  heap_array& operator=(const heap_array&) = delete;

  std::uint64_t size() const noexcept { return size_; }
  void fill(const T& value) {
    for (std::uint64_t i = 0; i < size_; ++i) data_[i] = value;
  }
  T& at(std::uint64_t i, const char* where) {
    if (i >= size_) [[unlikely]]
      fail(where, "index " + std::to_string(i) + " is out of range for array " + name_ + " of " +
                      std::to_string(size_));
    return data_[i];
  }
  static std::uint64_t bytes(std::uint64_t n) noexcept {
    return n > UINT64_MAX / sizeof(T) ? UINT64_MAX : n * sizeof(T);
  }

private:
  void allocate(std::uint64_t n, const char* where) {
    if (n > UINT64_MAX / sizeof(T) || n * sizeof(T) > static_cast<std::uint64_t>(PTRDIFF_MAX))
      fail(where, std::string("array ") + name_ + " of " + std::to_string(n) + " elements is larger than memory");
    try {
      data_.reset(new T[n]());
    } catch (const std::bad_alloc&) {
      fail(where, std::string("cannot allocate array ") + name_ + " of " + std::to_string(n) + " elements (" +
                      std::to_string(n * sizeof(T)) + " bytes)");
    }
    size_ = n;
  }
  std::unique_ptr<T[]> data_;
  std::uint64_t size_ = 0;
  const char* name_;
};

/// v[i] of an external vector, with the index checked against the script's line.
template <class V> typename V::value_type vector_get(V& v, std::uint64_t i, const char* where) {
  if (i >= v.size()) [[unlikely]]
    fail(where, "index " + std::to_string(i) + " is out of range for a vector of " + std::to_string(v.size()));
  return v.get(i);
}
/// v[i] as the target of an assignment: a reference into the vector's cached block, valid
/// until the vector's next access (the caller assigns to it at once).
template <class V> typename V::value_type& vector_ref(V& v, std::uint64_t i, const char* where) {
  if (i >= v.size()) [[unlikely]]
    fail(where, "index " + std::to_string(i) + " is out of range for a vector of " + std::to_string(v.size()));
  return v.modify(i);
}

/// [value; N]
template <class T, std::size_t N> std::array<T, N> filled(const T& value) {
  std::array<T, N> a;
  a.fill(value);
  return a;
}

/// hash(x): a 64-bit hash of the value's bytes (wyhash-style mixing of 8-byte words).
inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
template <class T> std::uint64_t hash(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ sizeof(T);
  std::size_t i = 0;
  for (; i + 8 <= sizeof(T); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, bytes + i, 8);
    h = mix(h ^ w);
  }
  if (i < sizeof(T)) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes + i, sizeof(T) - i);
    h = mix(h ^ w);
  }
  return h;
}

/// How print shows a value: integers in decimal (u8 and i8 too), bools as true/false,
/// floats in the shortest form that reads back to the same value.
template <class T> std::string show(const T& x) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    return std::string(std::string_view(x)); // a path param
  } else if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(+x);
  } else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
  }
}

} // namespace flow::script
