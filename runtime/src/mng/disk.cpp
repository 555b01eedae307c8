// A disk: opening/creating its file (temporary or kept), and first-fit space allocation.
#include "flow/mng/disk.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "flow/io/error.hpp"
#include "flow/io/memory_file.hpp"
#include "flow/io/posix_file.hpp"
#include "flow/io/temp_files.hpp"

namespace flow::mng {
namespace {

std::string unique_name_in(const std::string& directory) {
  static std::atomic<unsigned> counter{0};
  static const unsigned salt = std::random_device{}();
  std::string dir = directory;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + "/flow-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(salt % 100000) + ".disk";
}

unsigned mode_for(bool direct) {
  return io::open_mode::read | io::open_mode::write | (direct ? io::open_mode::direct : 0u);
}

} // namespace

disk::disk(std::size_t index, const disk_spec& spec, bool direct)
    : index_(index), capacity_(spec.capacity) {
  if (spec.path == ":memory:") {
    file_ = std::make_unique<io::memory_file>(":memory:" + std::to_string(index));
    return;
  }
  struct stat st;
  const bool exists = ::stat(spec.path.c_str(), &st) == 0;
  if (spec.directory && !(exists && S_ISDIR(st.st_mode)))
    // $TMPDIR names a folder, as for every program that reads it: a missing one is not
    // created as a disk file of that name.
    throw open_error("flow: the temporary disk goes in '" + spec.path + "' (" +
                         (std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? "$TMPDIR" : "the default") +
                         "), which is not an existing directory: create it, set TMPDIR to a folder, or give "
                         "--disk PATH",
                     spec.path);
  if (exists && !S_ISDIR(st.st_mode)) {
    // The user's own file or device: use it, never remove it, and lock it so that a
    // second program given the same file stops before it writes a block.
    auto file = std::make_unique<io::posix_file>(spec.path, mode_for(direct));
    file->lock_for_writing();
    file_ = std::move(file);
    return;
  }
  const std::string path = exists ? unique_name_in(spec.path) : spec.path;
  temporary_ = exists || !spec.keep;
  // Register before creating: a signal between the two must not leave the file behind.
  if (temporary_) io::temp_files::add(path);
  std::unique_ptr<io::posix_file> file;
  try {
    file = std::make_unique<io::posix_file>(
        path, mode_for(direct) | io::open_mode::create | io::open_mode::exclusive);
  } catch (...) {
    // Not created by us (EEXIST, bad directory, ...): forget it, never unlink it.
    if (temporary_) io::temp_files::forget(path);
    throw;
  }
  if (temporary_) {
    // Unlinked as soon as it is open: the open descriptor keeps the space, and the file
    // system frees it when the process ends however it ends, even by SIGKILL or a power
    // cut (which no handler can clean up after). Nothing else opens it by name.
    io::temp_files::remove(path);
  } else {
    file->lock_for_writing(); // a kept disk file: named, so another program could open it
  }
  file_ = std::move(file);
}

disk::~disk() {
  file_.reset(); // waits for pending requests, closes (a temporary disk's space goes now)
}

std::optional<std::uint64_t> disk::allocate(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  for (auto it = free_extents_.begin(); it != free_extents_.end(); ++it) {
    if (it->second < bytes) continue;
    const std::uint64_t offset = it->first;
    const std::uint64_t left = it->second - bytes;
    free_extents_.erase(it);
    if (left) free_extents_.emplace(offset + bytes, left);
    allocated_ += bytes;
    return offset;
  }
  if (capacity_ != 0 && end_ + bytes > capacity_) return std::nullopt;
  const std::uint64_t offset = end_;
  end_ += bytes;
  peak_end_ = std::max(peak_end_, end_);
  allocated_ += bytes;
  return offset;
}

void disk::free(std::uint64_t offset, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const auto double_free = [&] {
    return std::logic_error("flow: internal error: block at offset " + std::to_string(offset) +
                            " (" + std::to_string(bytes) + " bytes) of disk '" + path() +
                            "' freed twice or never allocated");
  };
  if (offset + bytes > end_) throw double_free();
  auto next = free_extents_.lower_bound(offset);
  if (next != free_extents_.end() && next->first < offset + bytes) throw double_free();
  std::uint64_t start = offset, length = bytes;
  if (next != free_extents_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second > offset) throw double_free();
    if (prev->first + prev->second == offset) { // merge with the extent before
      start = prev->first;
      length += prev->second;
      free_extents_.erase(prev);
    }
  }
  if (next != free_extents_.end() && next->first == offset + bytes) { // and the one after
    length += next->second;
    free_extents_.erase(next);
  }
  allocated_ -= bytes;
  if (start + length == end_) {
    end_ = start; // the free tail shrinks the used area instead of being kept as an extent
  } else {
    free_extents_.emplace(start, length);
  }
}

std::uint64_t disk::allocated_bytes() const {
  std::lock_guard lock(mutex_);
  return allocated_;
}

std::uint64_t disk::used_extent() const {
  std::lock_guard lock(mutex_);
  return end_;
}

std::uint64_t disk::peak_extent() const {
  std::lock_guard lock(mutex_);
  return peak_end_;
}

} // namespace flow::mng
