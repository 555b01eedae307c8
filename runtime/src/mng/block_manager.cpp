// The block manager: disks from a configuration, block allocation over them, the
// program-wide instance.
#include "flow/format.hpp"
#include "flow/mng/block_manager.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "flow/io/error.hpp"

namespace flow::mng {

std::ostream& operator<<(std::ostream& out, const block_id& id) {
  if (!id.valid()) return out << "block(invalid)";
  return out << "block(disk " << id.storage->index() << ", offset " << id.offset << ", "
             << id.bytes << " bytes)";
}

block_manager::block_manager(const disk_config& config) : direct_(config.direct) {
  if (config.disks.empty()) {
    throw std::invalid_argument("flow: a block manager needs at least one disk; give "
                                "--disk PATH[:SIZE] or leave the default");
  }
  // The same existing file twice would be two disks writing over each other's blocks
  // (the lock of the first does not stop the same process from opening it again).
  std::vector<std::pair<dev_t, ino_t>> files;
  for (const auto& spec : config.disks) {
    struct stat st;
    if (spec.path == ":memory:" || ::stat(spec.path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    if (std::find(files.begin(), files.end(), id) != files.end()) {
      throw open_error("flow: '" + spec.path + "' is given twice as a disk; give each --disk file once",
                           spec.path, 0, 0, 0);
    }
    files.push_back(id);
  }
  disks_.reserve(config.disks.size());
  for (const auto& spec : config.disks) {
    disks_.push_back(std::make_unique<disk>(disks_.size(), spec, config.direct));
  }
}

namespace {
block_manager* installed = nullptr;
} // namespace

block_manager::~block_manager() {
  if (installed == this) installed = nullptr; // never leave global() dangling
}

block_id block_manager::allocate(std::uint64_t bytes, allocation_strategy& strategy,
                                 std::size_t block_index) {
  if (bytes == 0 || bytes % 4096 != 0) {
    throw std::invalid_argument("flow: block size " + std::to_string(bytes) +
                                " is not a positive multiple of 4096 bytes");
  }
  const std::size_t first = strategy.disk_for(block_index, disks_.size());
  for (std::size_t k = 0; k < disks_.size(); ++k) {
    disk& d = *disks_[(first + k) % disks_.size()];
    if (auto offset = d.allocate(bytes)) return block_id{&d, *offset, bytes};
  }
  std::string detail;
  for (const auto& d : disks_) {
    detail += " '" + d->path() + "' has " + flow::format_bytes(d->allocated_bytes()) + " of " +
              flow::format_bytes(d->capacity()) + " in use;";
  }
  throw disk_full_error(
      "flow: no disk has room for another block of " + flow::format_bytes(bytes) + ":" + detail +
          " give a larger SIZE in --disk PATH:SIZE, or add another --disk.",
      disks_.front()->path(), 0, bytes, 0);
}

std::vector<block_id> block_manager::allocate(std::size_t count, std::uint64_t bytes,
                                              allocation_strategy& strategy,
                                              std::size_t first_index) {
  std::vector<block_id> ids;
  ids.reserve(count);
  try {
    for (std::size_t i = 0; i < count; ++i) ids.push_back(allocate(bytes, strategy, first_index + i));
  } catch (...) {
    free(ids); // all or nothing
    throw;
  }
  return ids;
}

void block_manager::free(const block_id& id) {
  if (!id.valid()) return;
  id.storage->free(id.offset, id.bytes);
}

void block_manager::free(std::span<const block_id> ids) {
  for (const auto& id : ids) free(id);
}

std::uint64_t block_manager::allocated_bytes() const {
  std::uint64_t sum = 0;
  for (const auto& d : disks_) sum += d->allocated_bytes();
  return sum;
}

block_manager& block_manager::global() {
  if (installed) return *installed;
  // Created on first use; its destructor at exit removes the temporary file (the
  // temp-file registry also covers exit paths that skip static destructors).
  static block_manager default_manager;
  return default_manager;
}

void block_manager::set_global(block_manager* bm) noexcept { installed = bm; }

} // namespace flow::mng
