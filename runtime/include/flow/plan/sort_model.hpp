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

  /// Bytes of one sorted run of elements of `element_bytes`, as flow::algo::runs_creator
  /// divides `memory`: a reserve of 1/16 (and a page) for the runs' metadata, then three
  /// run slots (filling, sorting, writing) — or, for elements over 32 bytes, which are
  /// sorted indirectly by key, two slots, 32 bytes of key pairs and half an element of
  /// write ring per element, and four ring blocks — in whole blocks.
  constexpr std::uint64_t run_bytes(std::uint64_t memory, std::uint64_t element_bytes = 8) const {
    const bool indirect = element_bytes > 32;
    const std::uint64_t fixed = std::max<std::uint64_t>(memory / 16, 4096) + 4096 + (indirect ? 4 * block_bytes : 0);
    if (memory <= fixed) return 0;
    const double per_byte = indirect ? (2.0 * element_bytes + 32 + element_bytes / 2.0) / element_bytes : 3.0;
    const auto bytes = static_cast<std::uint64_t>(static_cast<double>(memory - fixed) / per_byte);
    return bytes / block_bytes * block_bytes;
  }
  /// The most a sort keeps in memory without writing anything: the runtime holds the
  /// first run back, so two runs (one when sorting indirectly).
  constexpr std::uint64_t in_memory_capacity(std::uint64_t memory, std::uint64_t element_bytes = 8) const {
    return run_bytes(memory, element_bytes) * (element_bytes > 32 ? 1 : 2);
  }
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
  constexpr cost estimate(double bytes, std::uint64_t run_memory, std::uint64_t merge_memory,
                          std::uint64_t element_bytes = 8) const {
    cost c;
    if (bytes <= static_cast<double>(in_memory_capacity(run_memory, element_bytes)) &&
        in_memory_bytes(bytes) <= merge_memory) {
      c.in_memory = true;
      return c;
    }
    std::uint64_t run = std::max<std::uint64_t>(run_bytes(run_memory, element_bytes), block_bytes);
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
