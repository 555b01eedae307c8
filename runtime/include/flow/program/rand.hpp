#pragma once
// The random numbers of a Flow program: `rand()` and `rand(n)` in a script, seeded by the
// executable's --seed. Deterministic and the same on every platform, so a test can
// reproduce a run's data (a Python reference is in the comment below).
//
// Algorithm (exactly):
//   * seeding: the state s[0..3] of xoshiro256** is four successive outputs of splitmix64
//     started at x = seed:
//         x += 0x9e3779b97f4a7c15;  z = x;
//         z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//         z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
//         output z ^ (z >> 31)
//   * rand(): one step of xoshiro256** (Blackman & Vigna, 2018):
//         result = rotl(s[1] * 5, 7) * 9;  t = s[1] << 17;
//         s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
//         s[3] = rotl(s[3], 45);   return result
//   * rand(n): Lemire's multiply-shift, one rand() per call, no rejection:
//         (rand() * n) >> 64   (128-bit product), a value in [0, n); rand(0) = 0.
//     Each value's probability is off from 1/n by less than n / 2^64 (for n = 2^32 less
//     than 2.4e-10), far below anything a test can see.
// All arithmetic is modulo 2^64. The default seed (no --seed) is 1.
//
//   # Python reference
//   M = (1 << 64) - 1
//   def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M
//   class Rand:
//       def __init__(self, seed=1):
//           x, self.s = seed & M, []
//           for _ in range(4):
//               x = (x + 0x9e3779b97f4a7c15) & M
//               z = x
//               z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
//               z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
//               self.s.append(z ^ (z >> 31))
//       def rand(self, n=None):
//           s = self.s
//           r = (rotl((s[1] * 5) & M, 7) * 9) & M
//           t = (s[1] << 17) & M
//           s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
//           s[3] = rotl(s[3], 45)
//           return r if n is None else (r * n) >> 64
//
// The program's generator is one global object, not synchronized: call flow::rand from
// one thread at a time (a script's generate() runs on the thread of its phase). Code that
// wants its own stream makes a flow::random_generator.
#include <cstdint>

namespace flow {

inline constexpr std::uint64_t default_seed = 1;

class random_generator {
public:
  explicit constexpr random_generator(std::uint64_t seed = default_seed) noexcept { reseed(seed); }

  constexpr void reseed(std::uint64_t seed) noexcept {
    std::uint64_t x = seed;
    for (auto& word : s_) {
      x += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  /// The next 64 random bits.
  constexpr std::uint64_t operator()() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// A value in [0, n) (0 for n = 0): the high word of next() * n.
  constexpr std::uint64_t operator()(std::uint64_t n) noexcept {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>((*this)()) * n) >> 64);
  }

private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
  }
  std::uint64_t s_[4] = {};
};

namespace detail {
inline random_generator program_random{default_seed};
} // namespace detail

/// Restarts the program's generator (program::run does this with --seed).
inline void seed_rand(std::uint64_t seed) noexcept { detail::program_random.reseed(seed); }
/// The script's rand(): 64 random bits from the program's generator.
inline std::uint64_t rand() noexcept { return detail::program_random(); }
/// The script's rand(n): a value in [0, n), 0 for n = 0.
inline std::uint64_t rand(std::uint64_t n) noexcept { return detail::program_random(n); }

} // namespace flow
