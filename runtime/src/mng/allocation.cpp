// Allocation strategies: deterministic given the seed (splitmix64), so runs repeat.
#include "flow/mng/allocation.hpp"

#include <numeric>
#include <utility>

namespace flow::mng {
namespace {
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
} // namespace

allocation_strategy allocation_strategy::simple_random(std::uint64_t seed) {
  std::uint64_t s = seed;
  return allocation_strategy(kind::simple_random, seed, static_cast<std::size_t>(splitmix64(s)));
}

allocation_strategy allocation_strategy::fully_random(std::uint64_t seed) {
  return allocation_strategy(kind::fully_random, seed, 0);
}

allocation_strategy allocation_strategy::random_cycling(std::uint64_t seed) {
  return allocation_strategy(kind::random_cycling, seed, 0);
}

allocation_strategy allocation_strategy::single_disk(std::size_t disk) {
  return allocation_strategy(kind::single_disk, 1, disk);
}

std::size_t allocation_strategy::disk_for(std::size_t block_index, std::size_t disks) {
  if (disks <= 1) return 0;
  switch (kind_) {
  case kind::striping:
    return block_index % disks;
  case kind::simple_random:
    return (block_index + disk_) % disks;
  case kind::fully_random:
    return static_cast<std::size_t>(splitmix64(rng_) % disks);
  case kind::single_disk:
    return disk_ % disks;
  case kind::random_cycling: {
    // The permutation of a cycle depends only on (seed, cycle), not on the call order.
    const std::size_t cycle = block_index / disks;
    if (cycle != cycle_ || permutation_.size() != disks) {
      permutation_.resize(disks);
      std::iota(permutation_.begin(), permutation_.end(), std::size_t{0});
      std::uint64_t state = seed_ ^ (0x51ed27a3ULL * (cycle + 1));
      for (std::size_t i = disks - 1; i > 0; --i) {
        std::swap(permutation_[i], permutation_[splitmix64(state) % (i + 1)]);
      }
      cycle_ = cycle;
    }
    return permutation_[block_index % disks];
  }
  }
  return 0;
}

} // namespace flow::mng
