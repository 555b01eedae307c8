#pragma once
// The I/O model of an external sort, shared by the compiler's planner (flowc explain)
// and generated programs (their --stats estimate), so both tell the same numbers. It
// follows how flow::algo::runs_creator and runs_merger use a budget. Header-only,
// constexpr, no dependency on the rest of the runtime. docs/estimates.md has the formulas.
#include <algorithm>
#include <cstdint>

namespace flow::plan {

struct sort_model {
  std::uint64_t block_bytes;

  /// Bytes of one sorted run: three run slots (filling, sorting, writing) after a 1/16
  /// reserve for the runs' metadata, in whole blocks.
  constexpr std::uint64_t run_bytes(std::uint64_t memory) const {
    std::uint64_t reserve = std::max<std::uint64_t>(memory / 16, 4096);
    return memory > reserve ? (memory - reserve) / 3 / block_bytes * block_bytes : 0;
  }
  /// The most a sort keeps in memory without writing anything: one run slot.
  constexpr std::uint64_t in_memory_capacity(std::uint64_t memory) const { return run_bytes(memory); }
  /// Runs one merge takes at once: per run one block being merged and one read ahead,
  /// plus two output blocks.
  constexpr std::uint64_t fan_in(std::uint64_t memory) const {
    std::uint64_t blocks = memory / block_bytes;
    return blocks > 2 ? (blocks - 2) / 2 : 0;
  }
  /// Memory a merge phase needs to keep `bytes` of sorted data in memory (data and reserve).
  constexpr std::uint64_t in_memory_bytes(double bytes) const {
    std::uint64_t b = static_cast<std::uint64_t>(bytes);
    return b + std::max<std::uint64_t>(b / 16, 4096);
  }
  /// Memory a merge of `runs` runs wants to take them all at once.
  constexpr std::uint64_t merge_bytes(std::uint64_t runs) const { return (2 * runs + 2) * block_bytes; }

  struct cost {
    bool in_memory = false;
    std::uint64_t runs = 0;
    int passes = 0;
    double runs_write = 0;   // written by run formation
    double merge_read = 0;   // read by the merges
    double merge_write = 0;  // written by intermediate merge passes
  };

  /// The cost of sorting `bytes` with `run_memory` for run formation and `merge_memory`
  /// for merging. In memory when one run slot holds the data and the merge phase can
  /// keep it.
  constexpr cost estimate(double bytes, std::uint64_t run_memory, std::uint64_t merge_memory) const {
    cost c;
    if (bytes <= static_cast<double>(in_memory_capacity(run_memory)) && in_memory_bytes(bytes) <= merge_memory) {
      c.in_memory = true;
      return c;
    }
    std::uint64_t run = std::max<std::uint64_t>(run_bytes(run_memory), block_bytes);
    double runs = bytes / static_cast<double>(run);
    c.runs = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(runs) + (runs > static_cast<double>(static_cast<std::uint64_t>(runs)) ? 1 : 0));
    std::uint64_t k = std::max<std::uint64_t>(2, fan_in(merge_memory));
    c.passes = 1;
    for (std::uint64_t r = c.runs; r > k; r = (r + k - 1) / k) ++c.passes;
    c.runs_write = bytes;
    c.merge_read = bytes * c.passes;
    c.merge_write = bytes * (c.passes - 1);
    return c;
  }
};

} // namespace flow::plan
