#pragma once
// What the Flow and STXXL benchmark programs share so that both get the same input and
// are timed alike.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace bench {

/// splitmix64's output function: a bijective mix of 64 bits.
inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The k-th (from 0) number of splitmix64 seeded with 42, computed from k alone, so that
/// a .flow script (bench/bench.flow's rnd_at, u64 arithmetic wraps there too) and the
/// STXXL programs generate the same data without sharing a generator's state.
inline std::uint64_t rnd_at(std::uint64_t k) { return mix(42 + (k + 1) * 0x9e3779b97f4a7c15ULL); }

/// The same sequence one after another (rnd() is rnd_at(0), rnd_at(1), ...).
inline std::uint64_t rng_state = 42;
inline std::uint64_t rnd() { return mix(rng_state += 0x9e3779b97f4a7c15ULL); }

/// Whether the program got at least `args` arguments; if not, prints "usage: PROGRAM
/// USAGE" (the caller then exits with status 2).
inline bool has_args(int argc, char** argv, int args, const char* usage) {
  if (argc > args) return true;
  std::fprintf(stderr, "usage: %s %s\n", argv[0], usage);
  return false;
}

/// 2^k for an argument k (a LOG2_N).
inline std::uint64_t pow2_arg(const char* log2) { return std::uint64_t(1) << std::atoi(log2); }

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace bench
