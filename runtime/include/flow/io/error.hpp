#pragma once
// The exceptions of the runtime's I/O and block layers. Every one derives from
// flow::io_error, so a program can catch one type; what() is a complete message for the
// user: what failed, the file, offset and size, the system's reason, and what to do.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace flow {

class io_error : public std::runtime_error {
public:
  io_error(const std::string& message, std::string path = {}, std::uint64_t offset = 0,
           std::uint64_t bytes = 0, int error_number = 0);

  /// The file the failed operation was on ("" when not about one file).
  const std::string& path() const noexcept { return path_; }
  /// Byte offset and size of the failed operation (0 when not applicable).
  std::uint64_t offset() const noexcept { return offset_; }
  std::uint64_t bytes() const noexcept { return bytes_; }
  /// errno of the failed system call, 0 when the error did not come from one.
  int error_number() const noexcept { return error_number_; }

private:
  std::string path_;
  std::uint64_t offset_;
  std::uint64_t bytes_;
  int error_number_;
};

/// A file or disk could not be opened or created (bad path, permissions, read-only place).
class open_error : public io_error {
public:
  using io_error::io_error;
};

/// No space: the file system said ENOSPC, or a disk's configured capacity is used up.
class disk_full_error : public io_error {
public:
  using io_error::io_error;
};

/// A read ended before the requested size: the file is shorter than expected (truncated).
class short_read_error : public io_error {
public:
  using io_error::io_error;
};

/// A request was submitted to a file after close().
class closed_file_error : public io_error {
public:
  using io_error::io_error;
};

/// A user file's content does not fit its declared element type (size not a multiple).
class file_format_error : public io_error {
public:
  using io_error::io_error;
};

namespace io {

/// "<action> '<path>' (offset O, N bytes): <strerror> (errno E). <advice>" — the one
/// format of every I/O message, so users and tests see the same shape everywhere.
std::string describe_failure(std::string_view action, std::string_view path, std::uint64_t offset,
                             std::uint64_t bytes, int error_number, std::string_view advice);

/// Throws the io_error subclass that fits errno (ENOSPC/EDQUOT: disk_full_error, else
/// io_error), with a message built by describe_failure and advice fitting the errno.
[[noreturn]] void throw_system_error(std::string_view action, const std::string& path,
                                     std::uint64_t offset, std::uint64_t bytes, int error_number);

/// Advice for the user that fits an errno ("free space ...", "check the path ...").
std::string_view advice_for(int error_number);

/// The advice for a full file system under a program's output (not a --disk).
inline constexpr std::string_view output_full_advice =
    "The file system of this output is full: free space there, or give the output another place.";

/// throw_system_error for a write to one of the program's outputs: a full file system is
/// the output's, so the advice is about the output rather than --disk.
[[noreturn]] void throw_output_error(const std::string& path, std::uint64_t offset, std::uint64_t bytes,
                                     int error_number);

} // namespace io
} // namespace flow
