#pragma once
// Binary files of T, the language's `read("x.bin") as T` and `write ... to "x.bin"`:
// plain arrays of T with no header, read and written in large aligned chunks through
// the same asynchronous requests as disk blocks (O_DIRECT by default, reads ahead and
// writes behind with several chunks). A chunk is a multiple of both sizeof(T) and 4096,
// so no element ever straddles two chunks and every transfer is O_DIRECT-aligned.
//
//   flow::io::file_writer<point> out("points.bin");
//   for (...) out.push(p);
//   out.finish();                       // throws io_error on failure
//   flow::io::file_reader<point> in("points.bin");
//   for (; !in.empty(); ++in) use(*in);
//
// The path `-` is standard input (reader) or standard output (writer), read and written
// sequentially with plain read(2) and write(2) (flow/io/standard_streams.hpp): pipes and
// redirections work, nothing is seeked, truncated or opened again. A path that names a
// stream (a FIFO, /dev/stdin on a pipe, a character device) is read the same way; a
// pipe or FIFO can be read once per program (a second read is an error, never an
// empty input).
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/io/atomic_output.hpp"
#include "flow/io/buffer.hpp"
#include "flow/io/error.hpp"
#include "flow/io/posix_file.hpp"
#include "flow/io/standard_streams.hpp"

namespace flow::io {

namespace detail {
/// Chunk size and count for elements of `element_bytes` within `memory_bytes`: up to 4
/// chunks (reading ahead / writing behind), each a multiple of lcm(element, 4096).
struct chunking {
  std::size_t chunk_bytes;
  std::size_t chunks;
};
chunking plan_chunks(std::size_t element_bytes, std::size_t memory_bytes, const std::string& path);

/// A path that names a stream rather than a file of known size (a FIFO, a socket, a
/// character device, /dev/stdin on a pipe, a regular file that says it has no bytes, as
/// those of /proc do): opens it for plain sequential reads and returns the descriptor;
/// returns -1 for a regular file with bytes or a block device (read with posix_file). A
/// FIFO's open waits for its writer, as `cat fifo` does.
int open_stream_input(const std::string& path);

/// Marks the stream on `fd` (a pipe, FIFO or socket) as read by this process; throws
/// io_error naming `name` if it was read before: its data is gone, and a second read
/// would give nothing (or wait forever for a writer), never the elements again.
void claim_stream(int fd, const std::string& name);
void claim_stream(const struct stat& st, const std::string& name); ///< the same, by its stat
/// Marks standard input as read by this process, whatever it is (a pipe, or a file `<`
/// redirected, whose offset is then at its end), and its pipe as claim_stream does;
/// throws io_error if it was read before: a second read would see nothing, never the
/// elements again.
void claim_standard_input();
} // namespace detail

/// Default memory of a typed file reader or writer.
inline constexpr std::size_t default_typed_file_memory = std::size_t{16} << 20;

/// The buffer memory a reader or writer of T gets from a planned budget: the budget,
/// but at least the one chunk it needs (lcm(sizeof(T), 4096) bytes, more than a small
/// budget's blocks only for odd element sizes).
template <class T> std::size_t typed_file_memory(std::size_t planned) {
  return std::max(planned, std::lcm(sizeof(T), direct_alignment));
}

namespace detail {
/// What file_reader<T> does that does not depend on T, compiled once in libflow_runtime
/// (src/io/typed_file.cpp): opening, reading ahead, streams, errors. file_reader<T> keeps
/// only the element loop (a compare, a load and an add per element) inline.
class file_reader_core {
public:
  file_reader_core(const std::string& path, std::size_t element_bytes, std::size_t memory_bytes, bool direct,
                   std::string where, bool shared);
  ~file_reader_core();
  file_reader_core(const file_reader_core&) = delete;
  file_reader_core& operator=(const file_reader_core&) = delete;

  void close() noexcept;
  /// Bytes it reads of the file (all, or this rank's share); for standard input and other
  /// streams, those read so far.
  std::uint64_t bytes() const noexcept { return stream_ ? bytes_ : range_end_ - range_begin_; }
  bool is_stream() const noexcept { return stream_; }

protected:
  /// The next chunk's elements in [pos_, end_) (empty at the end).
  void next_chunk();

  const std::byte* pos_ = nullptr; ///< the current element of the current chunk
  const std::byte* end_ = nullptr; ///< a whole number of elements after the chunk's start

private:
  struct pending {
    aligned_buffer buffer;
    request_ptr request;
    std::uint64_t offset;
    std::size_t bytes;
  };
  void issue();
  void next_stream_chunk();

  std::string where_;
  std::size_t element_bytes_;
  std::unique_ptr<posix_file> file_; // null for standard input and other streams
  bool stream_ = false;
  bool shared_ = false;         // read by the ranks of an MPI program, each its part
  int stream_fd_ = -1;          // a stream's descriptor: 0 for `-`, else opened here
  bool owns_stream_fd_ = false; // closed by the destructor
  std::string stream_name_;     // "standard input" or the quoted path, for messages
  bool stream_ended_ = false;
  std::uint64_t bytes_ = 0;
  std::uint64_t range_begin_ = 0, range_end_ = 0; // the bytes read: the file, or a rank's share
  std::size_t chunk_bytes_ = 0;
  std::uint64_t chunk_count_ = 0;
  std::uint64_t next_issue_ = 0;
  std::vector<aligned_buffer> free_;
  std::deque<pending> in_flight_;
  aligned_buffer current_;
};

/// What file_writer<T> does that does not depend on T, compiled once in libflow_runtime
/// (src/io/typed_file.cpp): the atomic output, writing behind, streams, errors.
/// file_writer<T> keeps only the element loop (a compare, a copy and an add) inline.
class file_writer_core {
public:
  file_writer_core(const std::string& path, std::size_t element_bytes, std::size_t memory_bytes, bool direct);
  ~file_writer_core();
  file_writer_core(const file_writer_core&) = delete;
  file_writer_core& operator=(const file_writer_core&) = delete;

  /// Bytes pushed so far.
  std::uint64_t bytes() const noexcept {
    return written_ + (current_.size() ? static_cast<std::uint64_t>(pos_ - current_.data()) : 0);
  }
  void finish();

protected:
  /// Hands the full chunk to a write and makes [pos_, end_) the next one.
  void next_chunk();

  std::byte* pos_ = nullptr; ///< where the next element goes
  std::byte* end_ = nullptr; ///< the end of the chunk: a whole number of elements

private:
  struct pending {
    aligned_buffer buffer;
    request_ptr request;
  };
  /// A full file system under an output: the advice is about the output, not --disk.
  [[noreturn]] static void output_full(const disk_full_error& e);
  void finish_writing();
  void submit(aligned_buffer buffer, std::size_t bytes);
  void reclaim_oldest();
  void next_chunk_unchecked();

  std::unique_ptr<atomic_output> output_; // the temporary the file is written to
  std::unique_ptr<posix_file> file_;      // null for standard output, a FIFO or a device
  int stream_fd_ = -1;                    // their descriptor: 1, or opened here
  std::string stream_name_;               // "standard output" or the path, for messages
  std::size_t chunk_bytes_ = 0;
  std::size_t buffers_ = 0;
  std::uint64_t offset_ = 0;  // where the next chunk goes
  std::uint64_t written_ = 0; // bytes of elements handed to writes
  std::vector<aligned_buffer> free_;
  std::deque<pending> in_flight_;
  aligned_buffer current_;
  bool finished_ = false;
};
} // namespace detail

template <class T> class file_reader : private detail::file_reader_core {
  static_assert(std::is_trivially_copyable_v<T>, "files hold raw bytes of T");

public:
  using value_type = T;
  /// Opens `path`; throws open_error, or file_format_error when its size is not a
  /// multiple of sizeof(T). Uses at most `memory_bytes` of buffers (at least
  /// lcm(sizeof(T), 4096)). Starts reading ahead at once. `-` (or another stream, see
  /// detail::open_stream_input) reads standard input to
  /// its end, one chunk at a time (no read-ahead, no O_DIRECT); input that ends inside
  /// an element is a file_format_error, whose message starts with `where` if given
  /// (e.g. the script line "x.flow:3:8"). `shared`: the file is read by the ranks of an
  /// MPI program together, each its contiguous share of the elements (flow/ranks.hpp).
  explicit file_reader(const std::string& path,
                       std::size_t memory_bytes = default_typed_file_memory, bool direct = true,
                       std::string where = {}, bool shared = false)
      : file_reader_core(path, sizeof(T), memory_bytes, direct, std::move(where), shared) {}

  /// Stops reading: waits for the reads in flight and gives every buffer back. The
  /// reader is empty afterwards. Generated code calls it where the reader's phase ends
  /// (also after a `break` or `take`), since the plan gives its memory to later phases.
  using file_reader_core::close;
  /// Whether this reader reads a stream: standard input (`-`), a FIFO, a device.
  using file_reader_core::is_stream;

  /// Elements it reads of the file; for standard input and other streams, those read so far.
  std::uint64_t size() const noexcept { return bytes() / sizeof(T); }
  bool empty() const noexcept { return pos_ == end_; }
  const T& operator*() const noexcept { return *reinterpret_cast<const T*>(pos_); }
  const T* operator->() const noexcept { return reinterpret_cast<const T*>(pos_); }
  file_reader& operator++() {
    pos_ += sizeof(T);
    if (pos_ == end_) next_chunk();
    return *this;
  }
  /// The elements left in the current chunk.
  std::span<const T> batch() const noexcept {
    return {reinterpret_cast<const T*>(pos_), static_cast<std::size_t>(end_ - pos_) / sizeof(T)};
  }
  void advance(std::size_t n) {
    pos_ += n * sizeof(T);
    if (pos_ == end_) next_chunk();
  }
};

template <class T> class file_writer : private detail::file_writer_core {
  static_assert(std::is_trivially_copyable_v<T>, "files hold raw bytes of T");

public:
  /// Writes `path` atomically (flow/io/atomic_output.hpp): into a temporary next to it,
  /// renamed over it by finish(), so `path` keeps its old contents until then (a program
  /// may read the file it rewrites) and is never left half-written. Throws if the
  /// temporary cannot be created. A FIFO or a device (/dev/null, /dev/full) is written
  /// in place, in order, like standard output. `-`
  /// writes standard output (descriptor 1) sequentially, where it stands: nothing is
  /// truncated or seeked, so pipes and `>>` work; each chunk is written synchronously,
  /// after flushing C stdio's `stdout` (print's text keeps its place before the data).
  /// A writer destroyed without finish() (e.g. while an exception unwinds) removes its
  /// partial output; the target keeps what it had.
  explicit file_writer(const std::string& path,
                       std::size_t memory_bytes = default_typed_file_memory, bool direct = true)
      : file_writer_core(path, sizeof(T), memory_bytes, direct) {}

  void push(const T& v) {
    if (pos_ == end_) next_chunk();
    std::memcpy(pos_, &v, sizeof(T));
    pos_ += sizeof(T);
  }
  file_writer& operator<<(const T& v) {
    push(v);
    return *this;
  }
  /// Elements pushed so far.
  std::uint64_t size() const noexcept { return bytes() / sizeof(T); }

  /// Writes what is buffered, waits for every write, cuts the file to its exact size and
  /// closes it. Throws io_error (e.g. disk_full_error) on failure. Call once.
  using file_writer_core::finish;
};

} // namespace flow::io
