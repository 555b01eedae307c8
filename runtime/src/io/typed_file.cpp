// Typed files: chunk planning, streams, and the parts of file_reader<T> and
// file_writer<T> that do not depend on T (detail::file_reader_core, file_writer_core).
#include "flow/io/typed_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <numeric>
#include <set>
#include <utility>

#include "flow/io/request.hpp"
#include "flow/io/standard_streams.hpp"
#include "flow/ranks.hpp"

namespace flow::io::detail {

chunking plan_chunks(std::size_t element_bytes, std::size_t memory_bytes, const std::string& path) {
  const std::size_t unit = std::lcm(element_bytes, direct_alignment);
  if (memory_bytes < unit) {
    throw std::invalid_argument(
        "flow: reading or writing '" + path + "' needs at least " + std::to_string(unit) +
        " bytes of buffer memory (a whole number of " + std::to_string(element_bytes) +
        "-byte elements that is also a multiple of 4096), but got " +
        std::to_string(memory_bytes));
  }
  const std::size_t chunks = memory_bytes >= 4 * unit ? 4 : memory_bytes / unit;
  return {memory_bytes / (chunks * unit) * unit, chunks};
}

void claim_stream(int fd, const std::string& name) {
  struct stat st;
  if (::fstat(fd, &st) == 0) claim_stream(st, name);
}

void claim_stream(const struct stat& st, const std::string& name) {
  if (!(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return;
  static std::mutex mutex;
  static std::set<std::pair<dev_t, ino_t>> claimed;
  std::lock_guard lock(mutex);
  if (!claimed.insert({st.st_dev, st.st_ino}).second) {
    throw io_error("flow: " + name +
                       " is a pipe that this program has already read: its elements are gone, so a second "
                       "read would see none. Save it to a file first (e.g. cat > in.bin) and read that file.",
                   name, 0, 0, 0);
  }
}

void claim_standard_input() {
  static std::atomic<bool> claimed{false};
  if (claimed.exchange(true)) {
    throw io_error("flow: standard input has already been read by this program: it is read once, to its end, so a "
                   "second read would see nothing. Save it to a file first (e.g. cat > in.txt) and read that file.",
                   "standard input", 0, 0, 0);
  }
  claim_stream(STDIN_FILENO, "standard input"); // its pipe, also when named as /dev/stdin or a FIFO
}

int open_stream_input(const std::string& path) {
  struct stat st;
  // A path that cannot be stat'ed is left to posix_file, whose error names it.
  if (::stat(path.c_str(), &st) != 0 || S_ISBLK(st.st_mode)) return -1;
  // A regular file that says it has no bytes is read as a stream too: the files of /proc
  // and /sys say so and give their contents when read (an empty file gives nothing
  // either way). Unlike a pipe it is not claimed: it can be read again.
  const bool says_empty = S_ISREG(st.st_mode) && st.st_size == 0;
  if (S_ISREG(st.st_mode) && !says_empty) return -1;
  if (S_ISDIR(st.st_mode)) {
    throw open_error(describe_failure("cannot read elements from", path, 0, 0, EISDIR, advice_for(EISDIR)), path, 0,
                     0, EISDIR);
  }
  // Each rank of an MPI program opens its inputs itself (the program's start refuses the
  // pipes it knows of; this is one named at run time).
  if (ranks::size() > 1 && !says_empty) throw open_error(ranks::unshared_input_message(path), path, 0, 0, 0);
  // Claimed before the open: a FIFO read before would make open wait for a writer forever.
  claim_stream(st, "'" + path + "'");
  int fd;
  while ((fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (fd < 0) {
    const int e = errno;
    throw open_error(describe_failure("cannot open", path, 0, 0, e, advice_for(e)), path, 0, 0, e);
  }
  return fd;
}

file_reader_core::file_reader_core(const std::string& path, std::size_t element_bytes, std::size_t memory_bytes, bool direct,
                                   std::string where, bool shared)
    : where_(std::move(where)), element_bytes_(element_bytes), shared_(shared) {
  const auto plan = detail::plan_chunks(element_bytes_, memory_bytes, path);
  chunk_bytes_ = plan.chunk_bytes;
  if (is_standard_stream(path) || (stream_fd_ = detail::open_stream_input(path)) >= 0) {
    stream_ = true;
    // Shared by the ranks, a file that says it is empty (an empty file, or one of /proc
    // that gives its contents only as it is read; pipes were refused) is the first rank's.
    if (shared && !ranks::leads()) stream_ended_ = true;
    if (is_standard_stream(path)) {
      stream_fd_ = 0;
      stream_name_ = "standard input";
      detail::claim_standard_input(); // (open_stream_input claims the others)
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
  if (bytes_ % element_bytes_ != 0) {
    throw file_format_error(
        describe_failure("cannot read elements from", path, 0, bytes_, 0,
                         "The file has " + std::to_string(bytes_) +
                             " bytes, which is not a multiple of the element size " +
                             std::to_string(element_bytes_) + " (" +
                             std::to_string(bytes_ / element_bytes_) + " whole elements and " +
                             std::to_string(bytes_ % element_bytes_) +
                             " bytes left over). Check the element type given to read(...) "
                             "as T, or whether the file was cut short."),
        path, 0, bytes_, 0);
  }
  // A rank's share: whole elements, read in the chunks of the whole file's grid (a chunk
  // is a whole number of elements), the first and last trimmed to the share.
  const auto [first, last] = shared ? ranks::share<std::uint64_t>(0, bytes_ / element_bytes_)
                                    : std::pair<std::uint64_t, std::uint64_t>(0, bytes_ / element_bytes_);
  range_begin_ = first * element_bytes_;
  range_end_ = last * element_bytes_;
  next_issue_ = range_begin_ / chunk_bytes_;
  chunk_count_ = range_end_ > range_begin_ ? (range_end_ + chunk_bytes_ - 1) / chunk_bytes_ : next_issue_;
  const std::size_t buffers =
      static_cast<std::size_t>(std::min<std::uint64_t>(plan.chunks, chunk_count_ - next_issue_));
  for (std::size_t i = 0; i < buffers; ++i) free_.emplace_back(chunk_bytes_);
  issue();
  next_chunk();
}

file_reader_core::~file_reader_core() {
  close();
  if (owns_stream_fd_) ::close(stream_fd_);
}

void file_reader_core::close() noexcept {
  for (auto& f : in_flight_) io::wait_quietly(f.request);
  in_flight_.clear();
  free_.clear();
  current_ = aligned_buffer();
  pos_ = end_ = nullptr;
  next_issue_ = chunk_count_;
  stream_ended_ = true;
}

void file_reader_core::issue() {
  while (!free_.empty() && next_issue_ < chunk_count_) {
    const std::uint64_t offset = next_issue_ * chunk_bytes_;
    const std::size_t bytes = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes_, bytes_ - offset));
    // A direct read must have an aligned size: ask for the rounded-up tail, accept EOF.
    const std::size_t asked =
        file_->direct() ? (bytes + direct_alignment - 1) / direct_alignment * direct_alignment
                       : bytes;
    pending p{std::move(free_.back()), nullptr, offset, bytes};
    free_.pop_back();
    p.request = file_->aread_partial(p.buffer.data(), offset, asked, bytes);
    in_flight_.push_back(std::move(p));
    ++next_issue_;
  }
}

/// Standard input: fills the one buffer up to a whole chunk or the end of the input.
void file_reader_core::next_stream_chunk() {
  pos_ = end_ = nullptr;
  if (stream_ended_) return;
  // Standard input read whole by the ranks of an MPI program: the first reads, all get it.
  const auto read = [&](void* data, std::size_t bytes) { return read_fully(stream_fd_, data, bytes, stream_name_); };
  const std::size_t got = stream_fd_ == 0 && !shared_ ? ranks::first_rank_reads(current_.data(), chunk_bytes_, read)
                                                      : read(current_.data(), chunk_bytes_);
  if (got < chunk_bytes_) stream_ended_ = true;
  bytes_ += got;
  if (got % element_bytes_ != 0) {
    const std::uint64_t whole = bytes_ / element_bytes_;
    throw file_format_error((where_.empty() ? std::string() : where_ + ": ") + stream_name_ + " ended inside an element: " +
                                std::to_string(bytes_) + " bytes are " + std::to_string(whole) +
                                (whole == 1 ? " element" : " elements") + " of " + std::to_string(element_bytes_) +
                                " bytes and " + std::to_string(got % element_bytes_) +
                                " bytes left over; check the element type given to read(...) as T, "
                                "or whether the input was cut short",
                            "-", bytes_ - got % element_bytes_, got % element_bytes_, 0);
  }
  pos_ = current_.data();
  end_ = pos_ + got; // whole elements: a part of one threw above
  if (pos_ == end_) {
    stream_ended_ = true;
    current_ = aligned_buffer(); // the end: the buffer goes back
    pos_ = end_ = nullptr;
  }
}

void file_reader_core::next_chunk() {
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
  // Whole elements (the size was checked at open), within the range read.
  pos_ = current_.data() + (p.offset < range_begin_ ? range_begin_ - p.offset : 0);
  end_ = current_.data() + std::min<std::uint64_t>(p.bytes, range_end_ - p.offset);
}

file_writer_core::file_writer_core(const std::string& given_path, std::size_t element_bytes, std::size_t memory_bytes, bool direct) {
  // A stream every rank computes whole is written by the first rank (flow/ranks.hpp).
  const std::string& path = ranks::leads() ? given_path : discarded_output;
  const auto plan = detail::plan_chunks(element_bytes, memory_bytes, path);
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

file_writer_core::~file_writer_core() {
  if (stream_fd_ > 1) ::close(stream_fd_);
  if (finished_ || !file_) return; // a stream: what was written stays written
  for (auto& f : in_flight_) io::wait_quietly(f.request);
  try {
    file_->close();
  } catch (...) {
  }
  // output_'s destructor removes the temporary
}

void file_writer_core::finish() {
  try {
    finish_writing();
  } catch (const disk_full_error& e) {
    output_full(e);
  }
  ranks::output_finished();
}

void file_writer_core::output_full(const disk_full_error& e) {
  throw_output_error(e.path(), e.offset(), e.bytes(), e.error_number());
}

void file_writer_core::finish_writing() {
  if (finished_) throw std::logic_error("flow: file_writer::finish called twice");
  if (current_.size()) {
    const std::size_t bytes = static_cast<std::size_t>(pos_ - current_.data());
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

void file_writer_core::submit(aligned_buffer buffer, std::size_t bytes) {
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

void file_writer_core::reclaim_oldest() {
  pending p = std::move(in_flight_.front());
  in_flight_.pop_front();
  free_.push_back(std::move(p.buffer));
  p.request->wait(); // rethrows a failed write
}

void file_writer_core::next_chunk() {
  try {
    next_chunk_unchecked();
  } catch (const disk_full_error& e) {
    output_full(e);
  }
}

void file_writer_core::next_chunk_unchecked() {
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
  pos_ = current_.data();
  end_ = pos_ + chunk_bytes_; // whole elements: chunks are multiples of the element size
}

} // namespace flow::io::detail
