#pragma once
// Shared helpers of the runtime tests: element types of every tested size, deterministic
// values, a scratch directory that must be empty again at the end, block managers on a
// memory disk and on an O_DIRECT disk file.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <initializer_list>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "flow/mng/block_manager.hpp"

namespace flow::test {

/// An element of exactly N bytes (N = 16, 24, 100 in the tests).
template <std::size_t N> struct bytes_elem {
  unsigned char b[N];
  friend bool operator==(const bytes_elem& x, const bytes_elem& y) {
    return std::memcmp(x.b, y.b, N) == 0;
  }
};
static_assert(sizeof(bytes_elem<24>) == 24 && sizeof(bytes_elem<100>) == 100);

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The i-th test value of type T: differs between neighbours in every size.
template <class T> T value_of(std::uint64_t i) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(mix(i));
  } else {
    T v;
    for (std::size_t k = 0; k < sizeof(T); ++k) v.b[k] = static_cast<unsigned char>(mix(i * 131 + k));
    return v;
  }
}

using element_types = ::testing::Types<std::uint8_t, std::uint32_t, std::uint64_t,
                                       bytes_elem<16>, bytes_elem<24>, bytes_elem<100>>;

/// The ascending order of an unsigned integer type as the sorter takes it
/// (flow/algo/sort_traits.hpp): comparison only.
template <class U> struct ascending {
  bool operator()(U a, U b) const { return a < b; }
  static U min_value() { return std::numeric_limits<U>::min(); }
  static U max_value() { return std::numeric_limits<U>::max(); }
};
/// The same order with the value itself as its radix key, which decides it (total).
template <class U> struct keyed_ascending : ascending<U> {
  using key_type = U;
  static key_type key(U v) { return v; }
  static constexpr bool key_is_total = true;
};

/// Appends what is left of a batch node to `out`, mixing batch() / advance() with
/// operator* / operator++: half of each batch (at least one element), then one element.
template <class Node, class T> void read_mixed(Node& node, std::vector<T>& out) {
  while (!node.empty()) {
    auto b = node.batch();
    const std::size_t take = std::max<std::size_t>(1, b.size() / 2);
    out.insert(out.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(take));
    node.advance(take);
    if (!node.empty()) {
      out.push_back(*node);
      ++node;
    }
  }
}

/// Expects `message` (an error's what(), a report) to contain each of `parts`; a failure
/// shows the part and the whole message.
inline void expect_mentions(const std::string& message, std::initializer_list<std::string_view> parts) {
  for (const std::string_view part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "no \"" << part << "\" in: " << message;
}

/// Counts that cross block boundaries for blocks of B elements.
inline std::vector<std::uint64_t> boundary_counts(std::uint64_t B) {
  return {0, 1, B - 1, B, B + 1, 5 * B + 3};
}

/// Names of the entries of a directory (without . and ..).
inline std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  return names;
}

inline bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// A fresh directory under $FLOW_TEST_DIR or /var/tmp (disk-backed, so O_DIRECT works);
/// removed with its content at the end.
class scratch_dir {
public:
  scratch_dir() {
    const char* base = std::getenv("FLOW_TEST_DIR");
    std::string pattern = std::string(base && *base ? base : "/var/tmp") + "/flow-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) std::abort();
    path_ = buf.data();
  }
  ~scratch_dir() {
    std::error_code ignored; // folders a test made inside go too
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const { return list_dir(path_); }

private:
  std::string path_;
};

inline mng::disk_config memory_config(std::size_t disks = 1) {
  mng::disk_config c;
  for (std::size_t i = 0; i < disks; ++i) c.disks.push_back(mng::disk_spec::parse(":memory:"));
  return c;
}

/// Temporary O_DIRECT disk files in `dir` (one per disk).
inline mng::disk_config direct_config(const std::string& dir, std::size_t disks = 1) {
  mng::disk_config c;
  for (std::size_t i = 0; i < disks; ++i) c.disks.push_back(mng::disk_spec::parse(dir));
  c.direct = true;
  return c;
}

/// The thread counts a test of parallel code runs at. Under ThreadSanitizer (the suite's
/// runtime_tsan, where each is about ten times slower) only those of two threads or
/// more: one thread has no races to find, and the plain build runs them all.
inline std::vector<unsigned> parallel_thread_counts(std::initializer_list<unsigned> counts) {
  std::vector<unsigned> out;
  for (unsigned threads : counts)
#if defined(__SANITIZE_THREAD__)
    if (threads > 1)
#endif
      out.push_back(threads);
  return out;
}

} // namespace flow::test
