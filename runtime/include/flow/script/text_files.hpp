#pragma once
// Text files of records, one element per line, fields separated by white space. The
// compiler generates each record's `Fields` (how to read and write its scalars, their
// names and count). The path `-` is standard input or output
// (flow/io/standard_streams.hpp): input is read from descriptor 0, output goes through C
// stdio's `stdout`, in order with print().
//
// Reading is checked and bounded: every field must be a value of its type
// (flow/script/text_scalars.hpp), a line must have exactly the element's fields, and a
// line may be at most text_line_limit bytes long; a reader holds its 64 KiB buffer,
// grown only as far as its longest line needs. Every error names the file, the line,
// the field and the reason, and quotes the input only as a short, escaped excerpt.
// Reads and writes are counted in flow::io::stats under the file's name.
//
// line_reader and line_writer are the same files without fields: each line is one str
// (flow/script/str.hpp), bytes as they are, blank lines included.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/excerpt.hpp"
#include "flow/io/atomic_output.hpp"
#include "flow/io/error.hpp"
#include "flow/io/standard_streams.hpp"
#include "flow/io/typed_file.hpp" // claim_standard_input, open_stream_input
#include "flow/io/stats.hpp"
#include "flow/ranks.hpp"
#include "flow/script/str.hpp" // lines are strs; a field may be one
#include "flow/script/text_scalars.hpp"

namespace flow::script {

/// The longest line read_text takes, in bytes (without its '\n'): generous for records
/// of scalars, and a bound on what a reader holds when the input is not such text (a
/// binary file, one huge line).
inline constexpr std::size_t text_line_limit = std::size_t{1} << 20;
/// The bytes a text reader reads, and a text writer writes, per system call.
inline constexpr std::size_t text_buffer_bytes = std::size_t{64} << 10;

/// The white space between fields: what C's isspace() takes, except '\n', which ends a line.
inline bool is_field_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

class text_line_reader;

/// The fields of one line, read in order by a generated Fields::read. Each read checks
/// that the field is there and is a value of its type; end() checks that nothing follows.
class text_fields {
public:
  /// `lines` is the line's reader, which names the file and the line in messages (asked
  /// only then: a reader of a rank's part of the file counts the lines before it only
  /// for a message); `count` and `type_name` are the element's number of fields and its
  /// type.
  text_fields(std::string_view line, const text_line_reader& lines, std::size_t count, const char* type_name)
      : line_(line), lines_(lines), count_(count), type_name_(type_name) {}

  /// Reads the next field into `x`; `name` is its name in the element ("a", "p.x", "k[2]",
  /// or "" when the element is a single scalar).
  template <class T> void read(T& x, const char* name) {
    ++field_;
    skip_space();
    if (pos_ == line_.size()) {
      fail("field " + describe_field<T>(name) + " is missing: the line has " + std::to_string(field_ - 1) +
           " of the " + std::to_string(count_) + " fields of " + type_name_);
    }
    const std::size_t start = pos_;
    while (pos_ < line_.size() && !is_field_space(line_[pos_])) ++pos_;
    const std::string why = parse_scalar(line_.substr(start, pos_ - start), x);
    if (!why.empty()) fail("field " + describe_field<T>(name) + ": " + why);
  }

  /// Checks that the line has no more fields.
  void end() {
    skip_space();
    if (pos_ == line_.size()) return;
    std::string_view rest = line_.substr(pos_);
    while (!rest.empty() && is_field_space(rest.back())) rest.remove_suffix(1);
    fail("the line has more than the " + std::to_string(count_) + " fields of " + type_name_ + ": '" +
         excerpt(rest) + "' follows field " + std::to_string(count_));
  }

private:
  void skip_space() {
    while (pos_ < line_.size() && is_field_space(line_[pos_])) ++pos_;
  }
  template <class T> std::string describe_field(const char* name) const {
    return std::to_string(field_) + " (" + (*name ? std::string(name) + ": " : "") + scalar_type_name<T>() + ")";
  }
  [[noreturn]] void fail(const std::string& what) const; // after text_line_reader

  std::string_view line_;
  const text_line_reader& lines_;
  std::size_t count_;
  const char* type_name_;
  std::size_t pos_ = 0;
  std::size_t field_ = 0;
};

/// What follows "file:line: " in the error of a line longer than a reader takes, from the
/// reader's max_line and the line's first bytes: each reader names its own limit.
using long_line_message = std::string (*)(std::size_t max_line, std::string_view start);

/// read_text's: a line that long is most likely no text of records at all.
inline std::string read_text_long_line(std::size_t max_line, std::string_view start) {
  return "the line is longer than " + std::to_string(max_line) + " bytes, the longest line read_text takes (it starts '" +
         excerpt(start) + "'); is this a text file with one element per line?";
}

/// The lines of a file or of standard input, each at most `max_line` bytes, read through
/// a buffer that starts at text_buffer_bytes and grows only as far as the longest line
/// needs (at most max_line + 1 bytes). A longer line is an error as soon as max_line + 1
/// of its bytes are in the buffer: the rest is never read. A reader of short lines may
/// ask for a bigger first buffer (`buffer_bytes`), which then never grows: it reads
/// fewer times, and stops a long line after at most that many bytes.
///
/// How the ranks of an MPI program (flow/ranks.hpp) read it, `sharing`:
///   * whole: every rank all of it (standard input, which mpirun gives to the first rank
///     only: the first rank reads it for all);
///   * lines: this rank reads the lines that start in its share of the file's bytes (rank
///     r of P: bytes [size·r/P, size·(r+1)/P)), the last of them to its end wherever that
///     is; the ranks' lines in rank order are the file's. Line numbers in messages are
///     still the file's: the lines before the share are counted when a message needs them;
///   * by_caller: the caller finds the share (read_range; a CSV file's records).
/// Shared (lines, by_caller), a stream — standard input, a /proc file — is the first rank's.
enum class text_sharing { whole, lines, by_caller };

class text_line_reader {
public:
  explicit text_line_reader(const std::string& path, std::size_t max_line = text_line_limit,
                            long_line_message long_line = read_text_long_line, std::size_t buffer_bytes = 0,
                            text_sharing sharing = text_sharing::whole)
      : name_(io::is_standard_stream(path) ? "standard input" : path), max_line_(max_line), long_line_(long_line),
        counters_(name_), capacity_(std::max(buffer_bytes, std::min(text_buffer_bytes, max_line + 1))),
        buffer_(new char[capacity_]) {
    // Standard input, a pipe or a FIFO is read once: a second read is an error, never an
    // empty input (or a wait forever for a FIFO's writer).
    if (io::is_standard_stream(path)) {
      fd_ = 0;
      io::detail::claim_standard_input();
      // mpirun gives standard input to the first rank only: shared, the first rank's part
      // is all of it; read whole, the first rank reads it for every rank (fill).
      if (sharing != text_sharing::whole && ranks::rank() > 0) stop_ = 0;
      from_first_rank_ = sharing == text_sharing::whole && ranks::size() > 1;
    } else {
      owned_ = true;
      fd_ = io::detail::open_stream_input(path);
      if (fd_ >= 0) {
        // With several ranks only a file that says it is empty (a /proc file) is read as a
        // stream: all of it is the first rank's share.
        if (sharing != text_sharing::whole && ranks::rank() > 0) stop_ = 0;
        return;
      }
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) io::throw_system_error("cannot open", path, 0, 0, errno);
      seekable_ = true;
      if (sharing == text_sharing::lines && ranks::size() > 1) share();
    }
  }
  ~text_line_reader() {
    if (owned_) ::close(fd_);
  }
  text_line_reader(const text_line_reader&) = delete;
  text_line_reader& operator=(const text_line_reader&) = delete;

  /// The next line, without its '\n'; false at the end of the input. The view is valid
  /// until the next call.
  bool next(std::string_view& line) {
    if (skip_) skip_partial_line();
    for (;;) {
      if (const void* nl = std::memchr(buffer_.get() + scan_, '\n', end_ - scan_)) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get());
        return take(line, at, at + 1);
      }
      scan_ = end_;
      if (end_ - begin_ > max_line_) too_long();
      if (eof_) return begin_ < end_ && take(line, end_, end_);
      if (end_ == capacity_) make_room();
      fill();
    }
  }
  /// The number of the line next() returned last (1 for the first) in the file.
  std::uint64_t line_number() const { return lines_before() + line_number_; }

  // A reader whose caller finds the lines of its share itself (text_sharing::by_caller, a
  // CSV file's records, flow/script/csv_files.hpp): a file that is no stream, its size and
  // bytes, and a range of its lines.
  bool seekable() const noexcept { return seekable_; }
  std::uint64_t file_size() const {
    struct stat st;
    if (::fstat(fd_, &st) != 0) io::throw_system_error("cannot read", name_, 0, 0, errno);
    return static_cast<std::uint64_t>(st.st_size);
  }
  /// Reads up to `bytes` bytes at `offset` into `into` (fewer at the end of the file),
  /// without moving the reader. Counted in its I/O statistics.
  std::size_t read_at(std::uint64_t offset, char* into, std::size_t bytes) {
    ssize_t got;
    do {
      got = counters_.timed(false, [&] { return ::pread(fd_, into, bytes, static_cast<off_t>(offset)); });
    } while (got < 0 && errno == EINTR);
    if (got < 0) io::throw_system_error("cannot read", name_, offset, bytes, errno);
    return static_cast<std::size_t>(got);
  }
  /// Where the line after the last one next() returned starts in the file.
  std::uint64_t next_line_start() const noexcept { return offset_ - (end_ - begin_); }
  /// From now on, lines that start at `stop` or later are not this reader's (read on
  /// from where it is).
  void stop_at(std::uint64_t stop) noexcept { stop_ = stop; }
  /// Reads the lines that start in [start, stop) from now on, dropping what it holds;
  /// `start` is the start of a line (0, or the byte after a '\n').
  void read_range(std::uint64_t start, std::uint64_t stop) {
    if (::lseek(fd_, static_cast<off_t>(start), SEEK_SET) < 0)
      io::throw_system_error("cannot read", name_, start, 1, errno);
    begin_ = scan_ = end_ = 0;
    eof_ = false;
    offset_ = first_line_ = start;
    line_number_ = 0;
    before_.reset();
    stop_ = stop;
  }
  /// The file's name in messages: its path, or "standard input".
  const std::string& name() const noexcept { return name_; }

private:
  bool take(std::string_view& line, std::size_t end, std::size_t next) {
    if (offset_ - (end_ - begin_) >= stop_) return false; // the line starts in the next rank's share
    if (end - begin_ > max_line_) too_long();
    line = std::string_view(buffer_.get() + begin_, end - begin_);
    begin_ = scan_ = next;
    ++line_number_;
    return true;
  }
  /// Moves the unread part to the front, or grows the buffer when it is all unread.
  void make_room() {
    if (begin_ > 0) {
      std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      scan_ -= begin_;
      begin_ = 0;
      return;
    }
    const std::size_t grown = std::min(capacity_ * 2, max_line_ + 1);
    std::unique_ptr<char[]> bigger(new char[grown]);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  void fill() {
    const std::size_t want = capacity_ - end_;
    const auto read_some = [&](void* into, std::size_t bytes) {
      ssize_t got;
      do {
        got = counters_.timed(false, [&] { return ::read(fd_, into, bytes); });
      } while (got < 0 && errno == EINTR);
      if (got < 0) io::throw_system_error("cannot read", name_, offset_, bytes, errno);
      return static_cast<std::size_t>(got);
    };
    const std::size_t got = from_first_rank_ ? ranks::first_rank_reads(buffer_.get() + end_, want, read_some)
                                             : read_some(buffer_.get() + end_, want);
    if (got == 0) eof_ = true;
    end_ += got;
    offset_ += static_cast<std::uint64_t>(got);
  }
  /// This rank's share of the file: it starts reading at the byte before its share, and
  /// next() first drops everything up to the first '\n' (the line that began in the
  /// share before; none when that byte is a '\n').
  void share() {
    const std::uint64_t size = file_size(), r = static_cast<std::uint64_t>(ranks::rank()),
                        p = static_cast<std::uint64_t>(ranks::size());
    const std::uint64_t start = static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) * r / p);
    stop_ = static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) * (r + 1) / p);
    if (start == 0) return;
    if (::lseek(fd_, static_cast<off_t>(start - 1), SEEK_SET) < 0)
      io::throw_system_error("cannot read", name_, start - 1, 1, errno);
    offset_ = start - 1;
    skip_ = true;
  }
  void skip_partial_line() {
    skip_ = false;
    for (;;) {
      if (const void* nl = std::memchr(buffer_.get() + scan_, '\n', end_ - scan_)) {
        begin_ = scan_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get()) + 1;
        first_line_ = offset_ - (end_ - begin_);
        return;
      }
      begin_ = scan_ = end_ = 0; // all of it the line before
      if (eof_) {
        first_line_ = offset_;
        return;
      }
      fill();
    }
  }
  /// The lines of the file before this rank's first: counted, once, when a message asks.
  std::uint64_t lines_before() const {
    if (first_line_ == 0) return 0;
    if (!before_) {
      std::uint64_t lines = 0;
      std::unique_ptr<char[]> chunk(new char[text_buffer_bytes]);
      for (std::uint64_t at = 0; at < first_line_;) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(text_buffer_bytes, first_line_ - at));
        const ssize_t got = ::pread(fd_, chunk.get(), want, static_cast<off_t>(at));
        if (got <= 0) break; // the message then counts from the share: better than none
        lines += static_cast<std::uint64_t>(std::count(chunk.get(), chunk.get() + got, '\n'));
        at += static_cast<std::uint64_t>(got);
      }
      before_ = lines;
    }
    return *before_;
  }
  [[noreturn]] void too_long() const {
    throw file_format_error(name_ + ":" + std::to_string(line_number() + 1) + ": " +
                                long_line_(max_line_, std::string_view(buffer_.get() + begin_, end_ - begin_)),
                            name_);
  }

  std::string name_;
  std::size_t max_line_;
  long_line_message long_line_;
  io::stream_counters counters_;
  std::size_t capacity_;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0, scan_ = 0, end_ = 0; // unread bytes; scan_: where '\n' search resumes
  std::uint64_t offset_ = 0;                   // the file's offset after the bytes read so far
  std::uint64_t line_number_ = 0;              // lines returned
  // A rank's share (shared): lines that start at stop_ or later are the next rank's;
  // first_line_ is where its first line starts, and before_ the lines before it.
  std::uint64_t stop_ = UINT64_MAX, first_line_ = 0;
  mutable std::optional<std::uint64_t> before_;
  bool skip_ = false;
  int fd_ = -1;
  bool owned_ = false;
  bool seekable_ = false; // a file opened as such (not a stream)
  bool from_first_rank_ = false; // standard input read whole by several ranks (fill)
  bool eof_ = false;
};

inline void text_fields::fail(const std::string& what) const {
  throw file_format_error(lines_.name() + ":" + std::to_string(lines_.line_number()) + ": " + what, lines_.name());
}

/// A text file of elements, one per line; `Fields` reads and writes an element's scalars
/// (the compiler generates it from the element's type). Blank lines (only white space)
/// are skipped; a line that is not an element is an error naming the file, line and field.
template <class T, class Fields> class text_reader {
public:
  using value_type = T;
  /// `shared`: this rank's lines of a file the ranks share (text_line_reader).
  explicit text_reader(const std::string& path, bool shared = false, std::size_t max_line = text_line_limit)
      : lines_(path, max_line, read_text_long_line, 0, shared ? text_sharing::lines : text_sharing::whole) {
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
    std::string_view line;
    while (lines_.next(line)) {
      std::size_t first = 0;
      while (first < line.size() && is_field_space(line[first])) ++first;
      if (first == line.size()) continue; // a blank line
      text_fields fields(line, lines_, Fields::count, Fields::type_name);
      Fields::read(fields, current_);
      fields.end();
      return;
    }
    done_ = true;
  }

  text_line_reader lines_;
  T current_{};
  bool done_ = false;
};

/// Where a text writer's lines go. A file is written atomically, like
/// flow::io::file_writer: into a temporary renamed over it by finish(); an unfinished
/// output leaves `path` as it was. Every failed write (a full disk, /dev/full, a closed
/// pipe) is an error at once, naming the file, the offset and the system's reason. The
/// writers of each format (text_writer, csv_writer) only make the lines.
class text_output {
public:
  /// A stream every rank computes whole is written by the first rank (flow/ranks.hpp).
  explicit text_output(const std::string& given_path)
      : text_output(given_path, ranks::leads() ? given_path : io::discarded_output) {}

private:
  text_output(const std::string& given_path, const std::string& path)
      : name_(io::is_standard_stream(given_path) ? "standard output" : given_path), counters_(name_) {
    if (io::is_standard_stream(path)) {
      stdout_ = true;
      return;
    }
    output_ = std::make_unique<io::atomic_output>(path);
    fd_ = ::open(output_->path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) io::throw_system_error("cannot open", path, 0, 0, errno);
    buffer_.reserve(text_buffer_bytes + 256);
  }

public:
  ~text_output() {
    if (fd_ >= 0) ::close(fd_); // not finished: output_ then removes the temporary
  }
  text_output(const text_output&) = delete;
  text_output& operator=(const text_output&) = delete;

  /// The file's path, or "standard output".
  const std::string& name() const noexcept { return name_; }
  /// Where the next line's bytes go (without its '\n'); end_line() then ends it.
  std::string& line() {
    if (stdout_) line_.clear();
    return stdout_ ? line_ : buffer_;
  }
  void end_line() {
    if (stdout_) {
      // Straight into stdio, so that the line keeps its place among print()'s lines.
      line_ += '\n';
      if (std::fwrite(line_.data(), 1, line_.size(), stdout) != line_.size())
        io::throw_output_error(name_, offset_, line_.size(), errno);
      counters_.add(true, line_.size());
      offset_ += line_.size();
      return;
    }
    buffer_ += '\n';
    if (buffer_.size() >= text_buffer_bytes) flush_buffer();
  }
  /// Writes what is buffered, closes the file and puts it in place.
  void finish() {
    if (stdout_) {
      // What stdio still held is unknown: no offset or size in the message.
      if (std::fflush(stdout) != 0) io::throw_output_error(name_, 0, 0, errno);
      ranks::output_finished();
      return;
    }
    flush_buffer();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) io::throw_output_error(name_, offset_, 0, errno);
    output_->commit();
    ranks::output_finished();
  }

private:
  void flush_buffer() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const std::size_t want = buffer_.size() - done;
      const ssize_t r = counters_.timed(true, [&] { return ::write(fd_, buffer_.data() + done, want); });
      if (r < 0) {
        if (errno == EINTR) continue;
        io::throw_output_error(name_, offset_, want, errno);
      }
      done += static_cast<std::size_t>(r);
      offset_ += static_cast<std::uint64_t>(r);
    }
    buffer_.clear();
  }

  std::string name_;
  io::stream_counters counters_;
  std::unique_ptr<io::atomic_output> output_;
  int fd_ = -1;
  bool stdout_ = false;
  std::string buffer_; // a file's lines not yet written
  std::string line_;   // the line being written to standard output
  std::uint64_t offset_ = 0;
};

/// Writes elements as text, one per line, through a text_output (atomically, or to
/// standard output for `-`).
template <class T, class Fields> class text_writer {
public:
  explicit text_writer(const std::string& path) : out_(path) {}

  void push(const T& x) {
    ++lines_;
    try {
      Fields::write(out_.line(), x);
    } catch (const text_field_error& e) {
      // Nothing is put in place: the output stays as it was.
      throw file_format_error(out_.name() + ":" + std::to_string(lines_) + ": write_text: " + e.what() +
                                  "; write_csv or write_lines write such strs",
                              out_.name());
    }
    out_.end_line();
  }
  /// Writes what is buffered, closes the file and puts it in place.
  void finish() { out_.finish(); }

private:
  text_output out_;
  std::uint64_t lines_ = 0; // pushed, for a message's line number
};

/// A text file's lines as strs (`Str` is a str<Cap>), pulled like text_reader: each line
/// without its '\n' and without a '\r' before it (so \r\n files read the same), the last
/// line also without a '\n' after it, and blank lines too (they are empty strings, values
/// like any other). A line longer than the str's capacity is an error naming the file,
/// the line and flowc --max-str.
template <class Str> class line_reader {
public:
  using value_type = Str;
  // One byte over the capacity for a '\r': the text_line_reader stops a longer line
  // before buffering all of it, and next() checks the line without its '\r'. The whole
  // 64 KiB buffer, not capacity + 2 bytes: short lines must not cost a read each.
  /// `shared`: this rank's lines of a file the ranks share (text_line_reader).
  explicit line_reader(const std::string& path, bool shared = false)
      : lines_(path, Str::capacity + 1, long_line, text_buffer_bytes,
               shared ? text_sharing::lines : text_sharing::whole) {
    next();
  }
  bool empty() const { return done_; }
  const Str& operator*() const { return current_; }
  line_reader& operator++() {
    next();
    return *this;
  }

private:
  static std::string long_line(std::size_t, std::string_view start) {
    return "the line is longer than " + std::to_string(Str::capacity) + " bytes, the longest a str holds (it starts '" +
           excerpt(start) + "'); compile with flowc --max-str BYTES for longer lines";
  }
  void next() {
    std::string_view line;
    if (!lines_.next(line)) {
      done_ = true;
      return;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > Str::capacity) [[unlikely]]
      throw file_format_error(lines_.name() + ":" + std::to_string(lines_.line_number()) + ": " + long_line(0, line),
                              lines_.name());
    current_ = Str::from(line, ""); // fits: checked above
  }

  text_line_reader lines_;
  Str current_{};
  bool done_ = false;
};

/// How text_writer writes a str as a line: its bytes as they are (a '\n' inside a str
/// becomes a line break, so such a string reads back as several lines).
template <class Str> struct line_fields {
  static constexpr std::size_t count = 1;
  static constexpr const char* type_name = "str";
  static void write(std::string& out, const Str& s) { out.append(s.data(), s.size()); }
};
/// A text file of strs, one a line, written as text_writer writes (atomically, or to
/// standard output for `-`).
template <class Str> using line_writer = text_writer<Str, line_fields<Str>>;

} // namespace flow::script
