#pragma once
// Disk configuration: what a program's --disk PATH[:SIZE] flags (and --direct) say.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flow::mng {

/// Parses a byte size: a whole number with an optional unit B, K/KB/KiB, M/MB/MiB,
/// G/GB/GiB, T/TB/TiB (all binary, 1K = 1024; case-insensitive), e.g. "256MiB", "4G",
/// "4096". Throws std::invalid_argument with a message saying what is accepted.
std::uint64_t parse_size(std::string_view text);


/// One disk. The path decides what the runtime does with it:
///  - ":memory:"            a memory_file (tests, or tiny runs without a disk);
///  - an existing directory a new temporary file inside it, removed at exit;
///  - an existing file      used as is (contents are overwritten) and kept at exit;
///  - a new path            created, and removed at exit unless `keep` is set.
struct disk_spec {
  std::string path;
  std::uint64_t capacity = 0; // bytes the runtime may use on it; 0: no limit but the FS's
  bool keep = false;          // keep a file the runtime created
  bool directory = false;     // the path must be an existing directory (the default disk: $TMPDIR)

  /// Parses "PATH[:SIZE][:keep]", e.g. "/scratch/flow.disk:40GiB" or "/tmp". A last
  /// component that is not a size or "keep" belongs to the path.
  static disk_spec parse(std::string_view text);
};

struct disk_config {
  std::vector<disk_spec> disks;
  bool direct = true; // open disk files with O_DIRECT (--direct on|off)

  /// One temporary file in default_directory(), no capacity limit, O_DIRECT on.
  static disk_config defaults();
  /// $TMPDIR if set and non-empty, else /var/tmp (disk-backed on most systems, unlike
  /// a tmpfs /tmp).
  static std::string default_directory();
};

} // namespace flow::mng
