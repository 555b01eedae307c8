// Chunk planning for typed files.
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
}

int open_stream_input(const std::string& path) {
  struct stat st;
  // A path that cannot be stat'ed is left to posix_file, whose error names it.
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) return -1;
  if (S_ISDIR(st.st_mode)) {
    throw open_error(describe_failure("cannot read elements from", path, 0, 0, EISDIR, advice_for(EISDIR)), path, 0,
                     0, EISDIR);
  }
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

} // namespace flow::io::detail
