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

} // namespace flow::plan
