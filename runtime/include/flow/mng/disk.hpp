#pragma once
// One disk of the block manager: a file (disk file, device or memory), its request queue,
// and a first-fit allocator of its space. Blocks of different sizes may share a disk.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "flow/io/file.hpp"
#include "flow/mng/config.hpp"

namespace flow::mng {

class disk {
public:
  /// Opens or creates the disk described by `spec` (see disk_spec for what a path
  /// means). A temporary disk file (mode 0600) is unlinked as soon as it is open, so
  /// nothing is left behind even after SIGKILL; a named file that stays (the user's own,
  /// or :keep) is locked (posix_file::lock_for_writing). Throws open_error if it cannot.
  disk(std::size_t index, const disk_spec& spec, bool direct);
  /// Waits for the disk's pending I/O and closes it (which frees a temporary disk).
  ~disk();
  disk(const disk&) = delete;
  disk& operator=(const disk&) = delete;

  std::size_t index() const noexcept { return index_; }
  /// The file's path (for a directory spec: the temporary file created in it, already
  /// unlinked).
  const std::string& path() const noexcept { return file_->path(); }
  io::file& file() noexcept { return *file_; }
  /// Configured capacity in bytes; 0 means no limit but the file system's.
  std::uint64_t capacity() const noexcept { return capacity_; }
  /// True if the file is temporary (unlinked at once, its space freed when it closes).
  bool temporary() const noexcept { return temporary_; }

  /// Allocates `bytes` (a multiple of 4096) first-fit; nullopt if the capacity would be
  /// exceeded. Thread-safe.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes);
  /// Returns space to the disk. Throws std::logic_error on a double free.
  void free(std::uint64_t offset, std::uint64_t bytes);
  /// Bytes currently allocated, and the end of the used area (the file's needed size).
  std::uint64_t allocated_bytes() const;
  std::uint64_t used_extent() const;
  /// The largest used_extent() so far: how large the disk's file grew (files are not
  /// shrunk), what a --disk SIZE must hold.
  std::uint64_t peak_extent() const;

private:
  const std::size_t index_;
  std::uint64_t capacity_ = 0;
  bool temporary_ = false;
  std::unique_ptr<io::file> file_;

  mutable std::mutex mutex_;
  std::map<std::uint64_t, std::uint64_t> free_extents_; // offset -> bytes, all below end_
  std::uint64_t end_ = 0;
  std::uint64_t peak_end_ = 0;
  std::uint64_t allocated_ = 0;
};

} // namespace flow::mng
