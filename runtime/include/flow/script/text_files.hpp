#pragma once
// Text files of records, one element per line, fields separated by white space. The
// compiler generates each record's `Fields` (how to read and write its scalars). The
// path `-` is standard input or output (flow/io/standard_streams.hpp): input is read
// from descriptor 0, output goes through C stdio's `stdout`, in order with print().
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "flow/io/atomic_output.hpp"
#include "flow/io/standard_streams.hpp"
#include "flow/script/values.hpp"

namespace flow::script {

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
  using value_type = T;
  explicit text_reader(const std::string& path)
      : path_(io::is_standard_stream(path) ? "standard input" : path), in_(nullptr) {
    if (io::is_standard_stream(path)) {
      in_.rdbuf(&stdin_);
    } else {
      if (!file_.open(path, std::ios::in)) throw std::runtime_error("cannot open '" + path + "' for reading");
      in_.rdbuf(&file_);
    }
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
    if (in_.bad()) throw std::runtime_error("cannot read " + quoted());
    done_ = true;
  }

  std::string quoted() const { return path_ == "standard input" ? path_ : "'" + path_ + "'"; }

  std::string path_;
  std::filebuf file_;
  io::stdin_buf stdin_;
  std::istream in_;
  T current_{};
  std::uint64_t line_ = 0;
  bool done_ = false;
};

template <class T, class Fields> class text_writer {
public:
  /// Writes `path` atomically, like flow::io::file_writer: into a temporary renamed over
  /// it by finish(); an unfinished writer leaves `path` as it was.
  explicit text_writer(const std::string& path)
      : path_(io::is_standard_stream(path) ? "standard output" : path), out_(nullptr) {
    if (io::is_standard_stream(path)) {
      out_.rdbuf(&stdout_);
    } else {
      output_ = std::make_unique<io::atomic_output>(path);
      if (!file_.open(output_->path(), std::ios::out | std::ios::trunc))
        throw std::runtime_error("cannot open '" + path + "' for writing");
      out_.rdbuf(&file_);
    }
  }
  void push(const T& x) {
    Fields::write(out_, x);
    out_ << '\n';
  }
  void finish() {
    out_.flush();
    if (!out_ || (output_ && !file_.close())) {
      if (path_ == "standard output") throw std::runtime_error("cannot write to standard output");
      throw std::runtime_error("cannot write '" + path_ + "' (is the disk full?)");
    }
    if (output_) output_->commit();
  }

private:
  std::string path_;
  std::unique_ptr<io::atomic_output> output_; // declared before file_: the file closes first
  std::filebuf file_;
  io::stdout_buf stdout_;
  std::ostream out_;
};

} // namespace flow::script
