#pragma once
// Flow's defaults, each defined once: the memory budget of a script that sets none, the
// block size for a budget, and how many threads sorting and the priority queue use. The
// compiler's planner, generated programs and the runtime's own defaults all read these.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <thread>

#include <sched.h>
#include <unistd.h>

namespace flow {

/// The memory budget of a script without a `memory` declaration (and no --memory).
inline constexpr std::uint64_t default_memory_bytes = std::uint64_t{1} << 30;

/// The least memory budget a script's `memory` or a program's --memory may give: one
/// block of the smallest size (4 KiB). The one rule for both; whether a budget holds a
/// given plan is the planner's question (it names the phase and what it needs).
inline constexpr std::uint64_t min_memory_bytes = std::uint64_t{4} << 10;

/// The block size for a budget when the script fixes none: the largest power of two b
/// with 64 KiB <= b <= 4 MiB and b <= memory / 128 (so a merge can take 64 runs at
/// once with room to spare), at least 64 KiB.
constexpr std::uint64_t block_for_memory(std::uint64_t memory_bytes) noexcept {
  std::uint64_t b = std::uint64_t{64} << 10;
  while (b * 2 <= memory_bytes / 128 && b < (std::uint64_t{4} << 20)) b *= 2;
  return b;
}

/// The block size a run uses: `flag` (a program's or flowc's --block) if given, else
/// `script` (the script's `block`) if it sets one, else block_for_memory(memory_bytes).
/// The one rule of flowc's planner and of a program at start (program::block()), so a
/// program run with another --memory plans what `flowc explain --memory` shows.
constexpr std::uint64_t block_size(std::optional<std::uint64_t> flag, std::optional<std::uint64_t> script,
                                   std::uint64_t memory_bytes) noexcept {
  if (flag) return *flag;
  if (script) return *script;
  return block_for_memory(memory_bytes);
}

/// The block size of a program with the default budget (and the default block of the
/// runtime's containers when their user gives none).
inline constexpr std::uint64_t default_block_bytes = block_for_memory(default_memory_bytes);

/// The machine's physical memory in bytes (0 if it cannot be read).
inline std::uint64_t physical_memory_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

/// A memory budget given as a share of physical memory, `50%` (as GNU sort's -S takes
/// it): the bytes, rounded down to whole KiB; nullopt unless `text` is a number from
/// above 0 to 100 followed by `%`, or the machine's memory cannot be read.
inline std::optional<std::uint64_t> memory_share(std::string_view text) noexcept {
  if (text.size() < 2 || text.back() != '%') return std::nullopt;
  double percent = 0, scale = 0; // scale: the place of the next decimal digit, 0 before the point
  for (const char c : text.substr(0, text.size() - 1)) {
    if (c == '.' && scale == 0) scale = 0.1;
    else if (c < '0' || c > '9') return std::nullopt;
    else if (scale == 0) percent = percent * 10 + (c - '0');
    else percent += (c - '0') * scale, scale /= 10;
  }
  const std::uint64_t physical = physical_memory_bytes();
  if (!(percent > 0 && percent <= 100) || physical == 0) return std::nullopt;
  return static_cast<std::uint64_t>(static_cast<double>(physical) * percent / 100) / 1024 * 1024;
}

/// CPUs available to this process (sched_getaffinity), at least 1.
inline unsigned hardware_threads() noexcept {
  static const unsigned n = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
      const int c = CPU_COUNT(&set);
      if (c > 0) return static_cast<unsigned>(c);
    }
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return n;
}

/// $FLOW_THREADS where it is a thread count from 1 to 4096: the threads a program runs
/// with where --threads is not given (as OMP_NUM_THREADS sets OpenMP's), and flowc plans
/// for. Unset or anything else: none (a program then stops with a usage error).
inline std::optional<unsigned> environment_threads() noexcept {
  const char* v = std::getenv("FLOW_THREADS");
  if (!v || !*v) return std::nullopt;
  unsigned n = 0;
  for (; *v; ++v) {
    if (*v < '0' || *v > '9' || n > 4096) return std::nullopt;
    n = n * 10 + static_cast<unsigned>(*v - '0');
  }
  if (n < 1 || n > 4096) return std::nullopt;
  return n;
}

/// Threads that sorting, merging and the priority queue may use: --threads N of the
/// program (set_threads), else hardware_threads(). The one thread policy of the runtime.
unsigned threads() noexcept;
/// Sets what threads() returns (program::run does it for --threads); 0: the hardware's.
void set_threads(unsigned n) noexcept;

} // namespace flow
