#pragma once
// Block-to-disk assignment strategies of the parallel disk model (STXXL's striping,
// simple randomized, fully randomized and randomized cycling). A strategy maps the
// index of a block within one data structure (0, 1, 2, ...) to a disk. It is one value
// type chosen at run time: the choice is made once per block, never per element.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace flow::mng {

class allocation_strategy {
public:
  enum class kind { striping, simple_random, fully_random, random_cycling, single_disk };

  /// Striping: block i on disk i mod D. Best for one sequential scan.
  allocation_strategy() = default;
  static allocation_strategy striping() { return {}; }
  /// Striping from a random first disk.
  static allocation_strategy simple_random(std::uint64_t seed = 1);
  /// Every block on an independently random disk.
  static allocation_strategy fully_random(std::uint64_t seed = 1);
  /// Each run of D consecutive blocks on a fresh random permutation of the disks: every
  /// disk once per cycle, yet no fixed pattern. The sorter's choice (balanced merging of
  /// many runs read in an arbitrary order).
  static allocation_strategy random_cycling(std::uint64_t seed = 1);
  /// Every block on disk `disk` (modulo the disk count).
  static allocation_strategy single_disk(std::size_t disk);

  /// Disk for the `block_index`-th block when there are `disks` disks (disks >= 1).
  std::size_t disk_for(std::size_t block_index, std::size_t disks);
  kind which() const noexcept { return kind_; }

private:
  allocation_strategy(kind k, std::uint64_t seed, std::size_t disk)
      : kind_(k), seed_(seed), rng_(seed), disk_(disk) {}

  kind kind_ = kind::striping;
  std::uint64_t seed_ = 1;
  std::uint64_t rng_ = 1;  // fully_random's generator state
  std::size_t disk_ = 0;   // single_disk's disk, simple_random's first disk
  std::vector<std::size_t> permutation_; // random_cycling's current cycle
  std::size_t cycle_ = static_cast<std::size_t>(-1);
};

} // namespace flow::mng
