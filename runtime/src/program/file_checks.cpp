// The checks of a program's files before any work (steps of program::run_checked): each
// input exists, is not also an output, and holds whole elements (its size then known to
// the estimate); each output can be written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "flow/io/atomic_output.hpp"
#include "flow/io/standard_streams.hpp"
#include "flow/plan/input_size.hpp"
#include "flow/program.hpp"
#include "flow/ranks.hpp"
#include "messages.hpp"

namespace flow {

using detail::errno_text;

namespace {

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Why `output` cannot be written as an output ("" if it can): the checks atomic_output's
// temporary and rename will need, made before the work, on the file it writes (where a
// symbolic link leads).
std::string output_problem(const std::string& output) {
  const std::string path = io::through_links(output);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory; give a file name";
    if (!S_ISREG(st.st_mode)) { // a device or FIFO, written in place
      return ::access(path.c_str(), W_OK) == 0 ? "" : errno_text(errno);
    }
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    return "its directory '" + dir + "' " +
           (e == ENOENT ? std::string("does not exist; create it first (mkdir -p '" + dir + "') or give another path")
                        : "cannot be used: " + errno_text(e));
  }
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "its directory '" + dir + "' is not writable (" + errno_text(errno) +
           "); the output is written next to it first and renamed over it at the end";
  }
  return "";
}

} // namespace

std::vector<std::string> program::output_paths() const {
  std::vector<std::string> outputs;
  for (const auto& out : outputs_) outputs.push_back(out());
  return outputs;
}

// Not `-` (standard input), and not a file the script also writes (by name, or the same
// file on disk), which it may create first.
std::optional<int> program::check_input_files(const std::vector<std::string>& outputs) {
  for (auto& in : inputs_) {
    if (in.path_fn) in.path = in.path_fn();
    in.known = false;
    in.elements = 0;
    in.bytes = 0;
  }
  for (auto& in : inputs_) {
    if (io::is_standard_stream(in.path)) continue;
    bool written = false;
    for (const std::string& out : outputs)
      written = written || (!io::is_standard_stream(out) && same_file(in.path, out));
    if (written) continue;
    // A stream (a FIFO, /dev/stdin on a pipe, a character device) is read sequentially
    // like `-`, its size unknown. It is not opened here: opening a FIFO waits for its
    // writer, and closing it again would leave the writer with no reader (SIGPIPE).
    struct stat path_st;
    if (::stat(in.path.c_str(), &path_st) == 0 &&
        (S_ISFIFO(path_st.st_mode) || S_ISSOCK(path_st.st_mode) || S_ISCHR(path_st.st_mode))) {
      if (::access(in.path.c_str(), R_OK) != 0)
        return fail(1, "cannot read input file '" + in.path + "': " + errno_text(errno));
      if (ranks::size() > 1) return fail(2, ranks::unshared_input_message(in.path));
      continue;
    }
    const int fd = ::open(in.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      return fail(1, "cannot read input file '" + in.path + "': " + errno_text(e) +
                         (e == ENOENT ? "; check the path (relative paths start at the current directory)"
                                      : ""));
    }
    struct stat st;
    const int rc = ::fstat(fd, &st);
    const int e = errno;
    // A block device's st_size is 0: its size is where it ends.
    const off_t device_end = rc == 0 && S_ISBLK(st.st_mode) ? ::lseek(fd, 0, SEEK_END) : -1;
    const bool sized = rc == 0 && (S_ISREG(st.st_mode) || device_end >= 0);
    const auto size = static_cast<std::uint64_t>(!sized ? 0 : S_ISREG(st.st_mode) ? st.st_size : device_end);
    // A text file is any number of bytes: its lines are estimated from its start.
    const std::uint64_t lines = sized && in.type_name == text_input ? plan::estimated_lines(fd, size) : 0;
    ::close(fd);
    if (rc != 0) return fail(1, "cannot read input file '" + in.path + "': " + errno_text(e));
    if (S_ISDIR(st.st_mode)) return fail(1, "input file '" + in.path + "' is a directory");
    if (sized) {
      if (in.type_name == text_input) {
        in.elements = lines;
        in.bytes = size;
        in.known = true;
        continue;
      }
      if (size % in.element_bytes != 0) {
        const std::string of = in.type_name.empty() ? "one element" : "one " + in.type_name;
        return fail(1, "input file '" + in.path + "' has " + std::to_string(size) +
                           " bytes, not a multiple of " + std::to_string(in.element_bytes) +
                           " (the size of " + of + "): it is not a file of " +
                           (in.type_name.empty() ? "these elements" : in.type_name) +
                           ", or it is truncated");
      }
      in.elements = size / in.element_bytes;
      in.known = true;
    }
  }
  return std::nullopt;
}

// An output is written to a temporary in its directory and renamed over the target at
// the end, so a missing or read-only directory, or a target that is a directory, would
// otherwise fail only after all the work (and a sort's run formation) is done.
std::optional<int> program::check_output_files(const std::vector<std::string>& outputs) {
  for (const std::string& out : outputs) {
    if (io::is_standard_stream(out)) continue;
    if (std::string problem = output_problem(out); !problem.empty())
      return fail(1, "cannot write output file '" + out + "': " + problem);
  }
  return std::nullopt;
}

} // namespace flow
