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
/// character device, /dev/stdin on a pipe): opens it for plain sequential reads and
/// returns the descriptor; returns -1 for a regular file or a block device (read with
/// posix_file). A FIFO's open waits for its writer, as `cat fifo` does.
int open_stream_input(const std::string& path);

/// Marks the stream on `fd` (a pipe, FIFO or socket) as read by this process; throws
/// io_error naming `name` if it was read before: its data is gone, and a second read
/// would give nothing (or wait forever for a writer), never the elements again.
void claim_stream(int fd, const std::string& name);
void claim_stream(const struct stat& st, const std::string& name); ///< the same, by its stat
/// Marks standard input as read by this process, whatever it is (a pipe, or a file `<`
/// redirected, whose offset is then at its end); throws io_error if it was read before:
/// a second read would see nothing, never the elements again.
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

template <class T> class file_reader {
  static_assert(std::is_trivially_copyable_v<T>, "files hold raw bytes of T");

public:
  using value_type = T;
  /// Opens `path`; throws open_error, or file_format_error when its size is not a
  /// multiple of sizeof(T). Uses at most `memory_bytes` of buffers (at least
  /// lcm(sizeof(T), 4096)). Starts reading ahead at once. `-` (or another stream, see
  /// detail::open_stream_input) reads standard input to
  /// its end, one chunk at a time (no read-ahead, no O_DIRECT); input that ends inside
  /// an element is a file_format_error, whose message starts with `where` if given
  /// (e.g. the script line "x.flow:3:8").
  explicit file_reader(const std::string& path,
                       std::size_t memory_bytes = default_typed_file_memory, bool direct = true,
                       std::string where = {})
      : where_(std::move(where)) {
    const auto plan = detail::plan_chunks(sizeof(T), memory_bytes, path);
    chunk_bytes_ = plan.chunk_bytes;
    if (is_standard_stream(path) || (stream_fd_ = detail::open_stream_input(path)) >= 0) {
      stream_ = true;
      if (is_standard_stream(path)) {
        stream_fd_ = 0;
        stream_name_ = "standard input";
        detail::claim_standard_input();
        detail::claim_stream(stream_fd_, stream_name_); // (open_stream_input claims the others)
      } else {
        owns_stream_fd_ = true;
        stream_name_ = "'" + path + "'";
      }
      current_ = aligned_buffer(chunk_bytes_);
      next_chunk();
      return;
    }
    file_ = std::make_unique<posix_file>(path, open_mode::read | (direct ? open_mode::direct : 0u));
    bytes_ = file_->size();
    if (bytes_ % sizeof(T) != 0) {
      throw file_format_error(
          describe_failure("cannot read elements from", path, 0, bytes_, 0,
                           "The file has " + std::to_string(bytes_) +
                               " bytes, which is not a multiple of the element size " +
                               std::to_string(sizeof(T)) + " (" +
                               std::to_string(bytes_ / sizeof(T)) + " whole elements and " +
                               std::to_string(bytes_ % sizeof(T)) +
                               " bytes left over). Check the element type given to read(...) "
                               "as T, or whether the file was cut short."),
          path, 0, bytes_, 0);
    }
    chunk_count_ = (bytes_ + chunk_bytes_ - 1) / chunk_bytes_;
    const std::size_t buffers =
        static_cast<std::size_t>(std::min<std::uint64_t>(plan.chunks, chunk_count_));
    for (std::size_t i = 0; i < buffers; ++i) free_.emplace_back(chunk_bytes_);
    issue();
    next_chunk();
  }
  ~file_reader() {
    close();
    if (owns_stream_fd_) ::close(stream_fd_);
  }
  /// Stops reading: waits for the reads in flight and gives every buffer back. The
  /// reader is empty afterwards. Generated code calls it where the reader's phase ends
  /// (also after a `break` or `take`), since the plan gives its memory to later phases.
  void close() noexcept {
    for (auto& f : in_flight_) {
      try {
        f.request->wait();
      } catch (...) {
      }
    }
    in_flight_.clear();
    free_.clear();
    current_ = aligned_buffer();
    pos_ = end_ = nullptr;
    next_issue_ = chunk_count_;
    stream_ended_ = true;
  }
  file_reader(const file_reader&) = delete;
  file_reader& operator=(const file_reader&) = delete;

  /// Elements in the file; for standard input and other streams, those read so far.
  std::uint64_t size() const noexcept { return bytes_ / sizeof(T); }
  /// Whether this reader reads a stream: standard input (`-`), a FIFO, a device.
  bool is_stream() const noexcept { return stream_; }
  bool empty() const noexcept { return pos_ == end_; }
  const T& operator*() const noexcept { return *pos_; }
  const T* operator->() const noexcept { return pos_; }
  file_reader& operator++() {
    if (++pos_ == end_) next_chunk();
    return *this;
  }
  /// The elements left in the current chunk.
  std::span<const T> batch() const noexcept { return {pos_, static_cast<std::size_t>(end_ - pos_)}; }
  void advance(std::size_t n) {
    pos_ += n;
    if (pos_ == end_) next_chunk();
  }

private:
  struct pending {
    aligned_buffer buffer;
    request_ptr request;
    std::size_t bytes;
  };

  void issue() {
    while (!free_.empty() && next_issue_ < chunk_count_) {
      const std::uint64_t offset = next_issue_ * chunk_bytes_;
      const std::size_t bytes = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes_, bytes_ - offset));
      // A direct read must have an aligned size: ask for the rounded-up tail, accept EOF.
      const std::size_t asked =
          file_->direct() ? (bytes + direct_alignment - 1) / direct_alignment * direct_alignment
                         : bytes;
      pending p{std::move(free_.back()), nullptr, bytes};
      free_.pop_back();
      p.request = file_->aread_partial(p.buffer.data(), offset, asked, bytes);
      in_flight_.push_back(std::move(p));
      ++next_issue_;
    }
  }

  /// Standard input: fills the one buffer up to a whole chunk or the end of the input.
  void next_stream_chunk() {
    pos_ = end_ = nullptr;
    if (stream_ended_) return;
    const std::size_t got = read_fully(stream_fd_, current_.data(), chunk_bytes_, stream_name_);
    if (got < chunk_bytes_) stream_ended_ = true;
    bytes_ += got;
    if (got % sizeof(T) != 0) {
      const std::uint64_t whole = bytes_ / sizeof(T);
      throw file_format_error((where_.empty() ? std::string() : where_ + ": ") + stream_name_ + " ended inside an element: " +
                                  std::to_string(bytes_) + " bytes are " + std::to_string(whole) +
                                  (whole == 1 ? " element" : " elements") + " of " + std::to_string(sizeof(T)) +
                                  " bytes and " + std::to_string(got % sizeof(T)) +
                                  " bytes left over; check the element type given to read(...) as T, "
                                  "or whether the input was cut short",
                              "-", bytes_ - got % sizeof(T), got % sizeof(T), 0);
    }
    pos_ = reinterpret_cast<const T*>(current_.data());
    end_ = pos_ + got / sizeof(T);
    if (pos_ == end_) {
      stream_ended_ = true;
      current_ = aligned_buffer(); // the end: the buffer goes back
      pos_ = end_ = nullptr;
    }
  }

  void next_chunk() {
    if (stream_) return next_stream_chunk();
    if (current_.size()) free_.push_back(std::move(current_));
    pos_ = end_ = nullptr;
    issue();
    if (in_flight_.empty()) { // the end: the buffers go back (the plan gives them to later phases)
      free_.clear();
      return;
    }
    pending p = std::move(in_flight_.front());
    in_flight_.pop_front();
    try {
      p.request->wait();
    } catch (...) {
      free_.push_back(std::move(p.buffer));
      throw;
    }
    current_ = std::move(p.buffer);
    pos_ = reinterpret_cast<const T*>(current_.data());
    end_ = pos_ + p.bytes / sizeof(T);
  }

  std::string where_;
  std::unique_ptr<posix_file> file_; // null for standard input and other streams
  bool stream_ = false;
  int stream_fd_ = -1;          // a stream's descriptor: 0 for `-`, else opened here
  bool owns_stream_fd_ = false; // closed by the destructor
  std::string stream_name_;     // "standard input" or the quoted path, for messages
  bool stream_ended_ = false;
  std::uint64_t bytes_ = 0;
  std::size_t chunk_bytes_ = 0;
  std::uint64_t chunk_count_ = 0;
  std::uint64_t next_issue_ = 0;
  std::vector<aligned_buffer> free_;
  std::deque<pending> in_flight_;
  aligned_buffer current_;
  const T* pos_ = nullptr;
  const T* end_ = nullptr;
};

template <class T> class file_writer {
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
  explicit file_writer(const std::string& path,
                       std::size_t memory_bytes = default_typed_file_memory, bool direct = true) {
    const auto plan = detail::plan_chunks(sizeof(T), memory_bytes, path);
    chunk_bytes_ = plan.chunk_bytes;
    buffers_ = plan.chunks;
    if (is_standard_stream(path)) {
      buffers_ = 1;
      stream_fd_ = 1;
      stream_name_ = "standard output";
      return;
    }
    output_ = std::make_unique<atomic_output>(path);
    if (output_->in_place()) {
      // A FIFO or a device (/dev/null, /dev/full): written in order with write(2) like
      // standard output; it cannot be seeked, truncated or replaced. A FIFO's open waits
      // for its reader.
      buffers_ = 1;
      int fd;
      while ((fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC)) < 0 && errno == EINTR) {
      }
      if (fd < 0) {
        const int e = errno;
        throw open_error(describe_failure("cannot open", path, 0, 0, e, advice_for(e)), path, 0, 0, e);
      }
      stream_fd_ = fd;
      stream_name_ = path;
      return;
    }
    // Messages and --stats name the target, not the temporary it is written to first.
    file_ = std::make_unique<posix_file>(output_->path(),
                                         open_mode::write | open_mode::create | open_mode::truncate |
                                             (direct ? open_mode::direct : 0u),
                                         nullptr, path);
  }
  /// A writer destroyed without finish() (e.g. while an exception unwinds) removes its
  /// partial output; the target keeps what it had.
  ~file_writer() {
    if (stream_fd_ > 1) ::close(stream_fd_);
    if (finished_ || !file_) return; // a stream: what was written stays written
    for (auto& f : in_flight_) {
      try {
        f.request->wait();
      } catch (...) {
      }
    }
    try {
      file_->close();
    } catch (...) {
    }
    // output_'s destructor removes the temporary
  }
  file_writer(const file_writer&) = delete;
  file_writer& operator=(const file_writer&) = delete;

  void push(const T& v) {
    if (pos_ == end_) next_chunk();
    std::memcpy(static_cast<void*>(pos_++), &v, sizeof(T));
  }
  file_writer& operator<<(const T& v) {
    push(v);
    return *this;
  }
  /// Elements pushed so far.
  std::uint64_t size() const noexcept {
    return (written_ + (current_.size() ? static_cast<std::uint64_t>(
                                              reinterpret_cast<std::byte*>(pos_) - current_.data())
                                        : 0)) /
           sizeof(T);
  }

  /// Writes what is buffered, waits for every write, cuts the file to its exact size and
  /// closes it. Throws io_error (e.g. disk_full_error) on failure. Call once.
  void finish() {
    try {
      finish_writing();
    } catch (const disk_full_error& e) {
      output_full(e);
    }
  }

private:
  /// A full file system under an output: the advice is about the output, not --disk.
  [[noreturn]] static void output_full(const disk_full_error& e) {
    throw_output_error(e.path(), e.offset(), e.bytes(), e.error_number());
  }

  void finish_writing() {
    if (finished_) throw std::logic_error("flow: file_writer::finish called twice");
    if (current_.size()) {
      const std::size_t bytes =
          static_cast<std::size_t>(reinterpret_cast<std::byte*>(pos_) - current_.data());
      if (bytes) {
        // A direct write must have an aligned size: pad with zeros, cut the file after.
        const std::size_t padded =
            file_ && file_->direct() ? (bytes + direct_alignment - 1) / direct_alignment * direct_alignment
                           : bytes;
        std::memset(current_.data() + bytes, 0, padded - bytes);
        submit(std::move(current_), padded);
        written_ += bytes;
      }
      current_ = aligned_buffer();
      pos_ = end_ = nullptr;
    }
    while (!in_flight_.empty()) reclaim_oldest();
    free_.clear(); // a finished writer holds no memory
    if (file_) {
      if (file_->size() != written_) file_->set_size(written_);
      file_->close();
      output_->commit();
    } else if (stream_fd_ == 1) {
      if (std::fflush(stdout) != 0) throw_system_error("cannot write to", "standard output", written_, 0, errno);
    } else {
      const int fd = stream_fd_;
      stream_fd_ = -1;
      if (::close(fd) != 0 && errno != EINTR) throw_system_error("cannot write to", stream_name_, written_, 0, errno);
    }
    finished_ = true;
  }

private:
  struct pending {
    aligned_buffer buffer;
    request_ptr request;
  };

  void submit(aligned_buffer buffer, std::size_t bytes) {
    if (!file_) { // standard output, a FIFO or a device: in order, now
      if (stream_fd_ == 1) std::fflush(stdout);
      write_fully(stream_fd_, buffer.data(), bytes, stream_name_);
      offset_ += bytes;
      free_.push_back(std::move(buffer));
      return;
    }
    pending p{std::move(buffer), nullptr};
    p.request = file_->awrite(p.buffer.data(), offset_, bytes);
    offset_ += bytes;
    in_flight_.push_back(std::move(p));
  }

  void reclaim_oldest() {
    pending p = std::move(in_flight_.front());
    in_flight_.pop_front();
    free_.push_back(std::move(p.buffer));
    p.request->wait(); // rethrows a failed write
  }

  void next_chunk() {
    try {
      next_chunk_unchecked();
    } catch (const disk_full_error& e) {
      output_full(e);
    }
  }

  void next_chunk_unchecked() {
    if (current_.size()) {
      submit(std::move(current_), chunk_bytes_);
      written_ += chunk_bytes_;
    }
    if (free_.empty()) {
      if (in_flight_.size() < buffers_) {
        free_.emplace_back(chunk_bytes_);
      } else {
        reclaim_oldest();
      }
    }
    current_ = std::move(free_.back());
    free_.pop_back();
    pos_ = reinterpret_cast<T*>(current_.data());
    end_ = pos_ + chunk_bytes_ / sizeof(T);
  }

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
  T* pos_ = nullptr;
  T* end_ = nullptr;
  bool finished_ = false;
};

} // namespace flow::io
