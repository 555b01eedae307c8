#pragma once
// What the Flow and STXXL benchmark programs share so that both get the same input and
// are timed alike.
#include <chrono>
#include <cstdint>

namespace bench {

inline std::uint64_t rng_state = 42;
inline std::uint64_t rnd() { // splitmix64
  std::uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace bench
