#pragma once
// `-` as a path: standard input for reads, standard output for writes. Both are used as
// plain byte streams on file descriptors 0 and 1, so they work with pipes, terminals and
// redirections alike: no O_DIRECT, no seeking, no size known up front, and standard
// output is never opened again (a `> out` or `>> out` redirection is written where the
// shell left it, never truncated).
//
// Order on standard output: print() and write_text go through C stdio's `stdout`, in
// program order. A binary write to `-` flushes `stdout` before each chunk it writes to
// descriptor 1, and writes its last chunk when its statement ends, so text printed
// before a write statement comes before its data and text printed after comes after.
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include <unistd.h>

#include "flow/io/error.hpp"
#include "flow/io/stats.hpp"

namespace flow::io {

/// True if `path` means standard input (read) or standard output (write).
inline bool is_standard_stream(std::string_view path) noexcept { return path == "-"; }
/// Where a rank other than the first writes an output every rank computes whole
/// (flow/ranks.hpp): nowhere.
inline constexpr const char* discarded_output = "/dev/null";

/// How messages name a path: "standard input" / "standard output" for `-`.
inline std::string describe_path(std::string_view path, bool writing) {
  if (is_standard_stream(path)) return writing ? "standard output" : "standard input";
  return "'" + std::string(path) + "'";
}

/// The I/O statistics' counters of binary reads and writes of `name` ("standard input",
/// "standard output"), registered when first used: --stats counts these bytes too.
inline stream_counters& standard_stream_counters(const std::string& name) {
  static stream_counters input("standard input"), output("standard output");
  return name == "standard output" ? output : input;
}

/// Reads up to `bytes` from `fd`, stopping early only at end of input. Returns the bytes
/// read; throws io_error on a failed read. Counted in the I/O statistics under `name`.
inline std::size_t read_fully(int fd, void* data, std::size_t bytes, const std::string& name) {
  stream_counters& counters = standard_stream_counters(name);
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t r =
        counters.timed(false, [&] { return ::read(fd, static_cast<char*>(data) + got, bytes - got); });
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_system_error("cannot read", name, got, bytes - got, errno);
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

/// Writes all `bytes` to `fd` (after partial writes and EINTR); throws io_error. Counted
/// in the I/O statistics under `name`.
inline void write_fully(int fd, const void* data, std::size_t bytes, const std::string& name) {
  stream_counters& counters = standard_stream_counters(name);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t r =
        counters.timed(true, [&] { return ::write(fd, static_cast<const char*>(data) + done, bytes - done); });
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_system_error("cannot write to", name, done, bytes - done, errno);
    }
    done += static_cast<std::size_t>(r);
  }
}

} // namespace flow::io
