#pragma once
// What a program plans a read of an input file for when it starts: the file's elements,
// from its size (a text file: its lines, estimated). flowc explain counts a file present
// when it runs the same way.
#include <cstdint>

namespace flow::plan {

/// A text file's lines, estimated from the newlines in its first MiB (as a CSV reader
/// sniffs its input): one read, whatever the file's size. A first MiB without a newline
/// is one line so far; the rest of the file is taken to be like it; a file of at most
/// 1 MiB is counted exactly. `fd` is open for reading, `size` its bytes.
std::uint64_t estimated_lines(int fd, std::uint64_t size);

/// The bytes a line of a text file is planned at once its size and lines are known (the
/// read's bytes are then its lines times this: the file's size, rounded up by less than
/// a byte a line); `planned` when it has no lines.
inline std::uint64_t text_line_bytes(std::uint64_t size, std::uint64_t lines, std::uint64_t planned) {
  if (lines == 0) return planned;
  const std::uint64_t each = size / lines + (size % lines != 0);
  return each > 0 ? each : 1;
}

} // namespace flow::plan
