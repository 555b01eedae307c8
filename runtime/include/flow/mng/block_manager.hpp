#pragma once
// The block manager: the program's disks and the allocation of blocks on them. A program
// makes one from its --disk/--direct flags and installs it as the global one; containers
// and algorithms use block_manager::global() unless given another (tests do that).
//
//   flow::mng::disk_config cfg;
//   cfg.disks.push_back(flow::mng::disk_spec::parse("/scratch/a.disk:20GiB"));
//   flow::mng::block_manager bm(cfg);
//   flow::mng::block_manager::set_global(&bm);
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "flow/mng/allocation.hpp"
#include "flow/mng/block_id.hpp"
#include "flow/mng/config.hpp"
#include "flow/mng/disk.hpp"

namespace flow::mng {

class block_manager {
public:
  /// Opens every disk of `config` (throws open_error naming the path if one fails;
  /// disks opened before are closed and removed again).
  explicit block_manager(const disk_config& config = disk_config::defaults());
  /// Closes the disks after their pending I/O and removes temporary disk files. Blocks
  /// still allocated are simply dropped.
  ~block_manager();
  block_manager(const block_manager&) = delete;
  block_manager& operator=(const block_manager&) = delete;

  std::size_t disk_count() const noexcept { return disks_.size(); }
  disk& disk_at(std::size_t i) { return *disks_.at(i); }

  /// One block of `bytes` (a multiple of 4096) on the disk that `strategy` picks for
  /// the `block_index`-th block; if that disk is at its capacity the next disks are
  /// tried. Throws disk_full_error when no disk has room. Thread-safe.
  block_id allocate(std::uint64_t bytes, allocation_strategy& strategy,
                    std::size_t block_index = 0);
  /// `count` blocks for indices first_index, first_index+1, ...
  std::vector<block_id> allocate(std::size_t count, std::uint64_t bytes,
                                 allocation_strategy& strategy, std::size_t first_index = 0);

  void free(const block_id& id);
  void free(std::span<const block_id> ids);

  /// Sum over disks of the allocated bytes.
  std::uint64_t allocated_bytes() const;
  /// Whether disk files were asked to use O_DIRECT (each file may have fallen back).
  bool direct() const noexcept { return direct_; }

  /// The installed block manager, or else a default one (one temporary file in
  /// disk_config::default_directory()) created on first use and removed at exit.
  static block_manager& global();
  /// Installs `bm` as the global one (nullptr: back to the default). Not thread-safe
  /// with respect to concurrent global() calls: do it at program start. A manager that
  /// is destroyed while installed uninstalls itself.
  static void set_global(block_manager* bm) noexcept;

private:
  std::vector<std::unique_ptr<disk>> disks_;
  bool direct_ = true;
};

} // namespace flow::mng
