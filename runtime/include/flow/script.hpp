#pragma once
// What code generated from a .flow script needs beyond the containers and the sorter:
// Flow's arithmetic rules where C++ would have undefined behaviour (division by zero,
// float-to-integer conversion out of range, array index out of range) turned into
// errors that name the script's line, hashing, printing, text files of records, and a
// k-way merge of sorted streams. Everything is inline; each function is small.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace flow::script {

/// A run-time error of the script, with the script position it happened at.
struct script_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const char* where, const std::string& what) {
  throw script_error(std::string(where) + ": " + what);
}

/// a / b and a % b for integers: division by zero is an error, not undefined behaviour;
/// the lowest signed value divided by -1 wraps (as two's complement arithmetic does).
template <class T> T div(T a, T b, const char* where) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) fail(where, "division by zero");
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));
  }
  return static_cast<T>(a / b);
}
template <class T> T mod(T a, T b, const char* where) {
  if (b == 0) fail(where, "division by zero");
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return 0;
  return static_cast<T>(a % b);
}

/// a << n and a >> n in the type of a: a count at or beyond its width gives 0 (or, for
/// >> of a negative value, -1), where C++ leaves it undefined.
template <class T, class N> T shift_left(T a, N n) {
  if (static_cast<std::uint64_t>(n) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << n);
}
template <class T, class N> T shift_right(T a, N n) {
  if (static_cast<std::uint64_t>(n) >= sizeof(T) * 8) return a < 0 ? static_cast<T>(-1) : 0;
  return static_cast<T>(a >> n);
}

/// `x as T`: integers wrap (two's complement), floats to integers must be in range.
template <class To, class From> To convert(From x, const char* where) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    // The range test is on the exact bounds of To as a double.
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (!(x >= lo && x < hi + 1.0)) {
      std::ostringstream s;
      s << "the value " << x << " does not fit in the integer type it is converted to";
      fail(where, s.str());
    }
  }
  return static_cast<To>(x);
}

/// a[i] with the index checked.
template <class T, std::size_t N> const T& index(const std::array<T, N>& a, std::uint64_t i, const char* where) {
  if (i >= N) fail(where, "index " + std::to_string(i) + " is out of range for an array of " + std::to_string(N));
  return a[i];
}
template <class T, std::size_t N> T& index(std::array<T, N>& a, std::uint64_t i, const char* where) {
  if (i >= N) fail(where, "index " + std::to_string(i) + " is out of range for an array of " + std::to_string(N));
  return a[i];
}

/// [value; N]
template <class T, std::size_t N> std::array<T, N> filled(const T& value) {
  std::array<T, N> a;
  a.fill(value);
  return a;
}

/// Equality of whole elements for `unique`: == where the type has it (Flow's records),
/// else the bytes (imported C++ records, which are trivially copyable).
template <class T> bool equal(const T& a, const T& b) {
  if constexpr (requires { a == b; }) return a == b;
  else return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// abs for every numeric type; for unsigned types it is the value itself.
template <class T> T abs(T x) {
  if constexpr (std::is_unsigned_v<T>) return x;
  else return x < 0 ? static_cast<T>(0 - x) : x;
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
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(+x);
  } else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
  }
}

// ------------------------------------------------------------------------ text files

/// Reads the next whitespace-separated scalar of a text file into `x`.
template <class T> bool read_scalar(std::istream& in, T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    std::string w;
    if (!(in >> w)) return false;
    if (w == "true" || w == "1") x = true;
    else if (w == "false" || w == "0") x = false;
    else in.setstate(std::ios::failbit);
    return static_cast<bool>(in);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    int v;
    if (!(in >> v)) return false;
    if (v < std::numeric_limits<T>::lowest() || v > std::numeric_limits<T>::max()) {
      in.setstate(std::ios::failbit);
      return false;
    }
    x = static_cast<T>(v);
    return true;
  } else {
    return static_cast<bool>(in >> x);
  }
}

template <class T> void write_scalar(std::ostream& out, const T& x) { out << show(x); }

/// A text file of elements, one per line; `Fields` reads and writes an element's scalars
/// (the compiler generates it from the record's fields). A line that does not parse is
/// an error naming the file and the line.
template <class T, class Fields> class text_reader {
public:
  explicit text_reader(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw std::runtime_error("cannot open '" + path + "' for reading");
    next();
  }
  bool empty() const { return done_; }
  const T& operator*() const { return current_; }
  text_reader& operator++() {
    next();
    return *this;
  }

private:
  void next() {
    std::string line;
    while (std::getline(in_, line)) {
      ++line_;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue; // blank lines
      std::istringstream fields(line);
      if (!Fields::read(fields, current_)) {
        throw std::runtime_error(path_ + ":" + std::to_string(line_) + ": cannot read a value from '" + line + "'");
      }
      std::string rest;
      if (fields >> rest)
        throw std::runtime_error(path_ + ":" + std::to_string(line_) + ": more values than the type has: '" + line + "'");
      return;
    }
    if (in_.bad()) throw std::runtime_error("cannot read '" + path_ + "'");
    done_ = true;
  }

  std::string path_;
  std::ifstream in_;
  T current_{};
  std::uint64_t line_ = 0;
  bool done_ = false;
};

template <class T, class Fields> class text_writer {
public:
  explicit text_writer(const std::string& path) : path_(path), out_(path) {
    if (!out_) throw std::runtime_error("cannot open '" + path + "' for writing");
  }
  void push(const T& x) {
    Fields::write(out_, x);
    out_ << '\n';
  }
  void finish() {
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write '" + path_ + "' (is the disk full?)");
  }

private:
  std::string path_;
  std::ofstream out_;
};

// ------------------------------------------------------------------------ merging

/// The merge of k sorted pull streams (empty / * / ++) by Cmp. Ties go to the input
/// listed first, so a merge is stable. k is small (the script lists the inputs), so a
/// linear scan for the smallest head is the fastest choice.
template <class T, class Cmp, class... Inputs> class merged {
public:
  explicit merged(Inputs&... inputs) : inputs_(inputs...) { pick(); }
  bool empty() const { return current_ < 0; }
  const T& operator*() const { return head_; }
  merged& operator++() {
    advance(std::make_index_sequence<sizeof...(Inputs)>{});
    pick();
    return *this;
  }

private:
  template <std::size_t... I> void advance(std::index_sequence<I...>) {
    ((static_cast<int>(I) == current_ ? (void)++std::get<I>(inputs_) : (void)0), ...);
  }
  template <std::size_t I> void consider(Cmp& cmp) {
    auto& in = std::get<I>(inputs_);
    if (in.empty()) return;
    if (current_ < 0 || cmp(*in, head_)) {
      head_ = *in;
      current_ = static_cast<int>(I);
    }
  }
  template <std::size_t... I> void pickAll(std::index_sequence<I...>) {
    Cmp cmp;
    (consider<I>(cmp), ...);
  }
  void pick() {
    current_ = -1;
    pickAll(std::make_index_sequence<sizeof...(Inputs)>{});
  }

  std::tuple<Inputs&...> inputs_;
  T head_{};
  int current_ = -1;
};

} // namespace flow::script
