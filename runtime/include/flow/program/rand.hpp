#pragma once
// The random numbers of a Flow program: `rand()` and `rand(n)` in a script, seeded by the
// executable's --seed. Counter-based: a value is a function of the seed, of where it is
// drawn and of how many draws came before it there — not of a generator's state that
// every draw moves on. So a stage's element draws the same values whatever thread
// evaluates it and whichever MPI rank generates it (a rank of a spread `generate` starts
// at its first index and draws what one process draws there), and the values are the
// same on every platform, so a test can reproduce a run's data (a Python reference is in
// the comment below and in test/e2e/Inputs/flow_rand.py).
//
// Where a value is drawn:
//   * in a stage's function — generate, map, filter — the element's draws are a stream
//     of their own: stage s (the script's stages that draw rand(), numbered 1, 2, … in
//     the order the plan lists them: the order statements run them, a `stream s = …`
//     counting where a statement first reads it), in its run r (0 the first time the statement runs, 1 the second: a
//     statement in a loop), at the element's position p (generate: the index i; map and
//     filter: the number of elements the stage saw before it, from 0);
//   * anywhere else (statements, loop bodies, for stages, join and reduce functions) the
//     program's sequence: stage 0, run 0, position 0, one long stream of draws.
//
// Algorithm (exactly; all arithmetic modulo 2^64, G = 0x9e3779b97f4a7c15):
//   mix(z):  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//            z = (z ^ (z >> 27)) * 0x94d049bb133111eb;  return z ^ (z >> 31)
//            (splitmix64's output function, a bijection)
//   key(seed, s, r) = mix(mix(mix(seed + G) + G * (s + 1)) + G * (r + 1))
//   the d-th draw (from 0) at position p:  mix(mix(key + G * (p + 1)) + G * (d + 1))
//   (each step adds a multiple of G that is not 0, so no chain of zeros stays 0)
//   rand(n): Lemire's multiply-shift of one draw: (draw * n) >> 64 (128-bit product), a
//   value in [0, n); rand(0) = 0. Each value's probability is off from 1/n by less than
//   n / 2^64 (for n = 2^32 less than 2.4e-10), far below anything a test can see.
// The default seed (no --seed) is 1.
//
//   # Python reference
//   M, G = (1 << 64) - 1, 0x9E3779B97F4A7C15
//   def mix(z):
//       z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
//       z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
//       return z ^ (z >> 31)
//   class Rand:
//       def __init__(self, seed=1, stage=0, run=0):
//           k = mix((mix((mix((seed + G) & M) + G * (stage + 1)) & M) + G * (run + 1)) & M)
//           self.key = k
//           self.at(0)
//       def at(self, position):
//           self.base, self.draws = mix((self.key + G * (position + 1)) & M), 0
//       def rand(self, n=None):
//           r = mix((self.base + G * (self.draws + 1)) & M)
//           self.draws += 1
//           return r if n is None else (r * n) >> 64
//
// The program's sequence is one object, not synchronized: draw from it on one thread at
// a time. A stage's draws are the thread's own while rand_stage::at runs its function.
#include <cstdint>
#include <utility>
#include <vector>

namespace flow {

inline constexpr std::uint64_t default_seed = 1;

namespace detail {

inline constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;

/// splitmix64's output function.
constexpr std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stage, std::uint64_t run) noexcept {
  return mix(mix(mix(seed + golden) + golden * (stage + 1)) + golden * (run + 1));
}

/// Where draws are taken now: the base of a position and the draws taken there.
struct draw_point {
  std::uint64_t base = 0;
  std::uint64_t draws = 0;
  static constexpr draw_point at(std::uint64_t key, std::uint64_t position) noexcept {
    return {mix(key + golden * (position + 1)), 0};
  }
  constexpr std::uint64_t next() noexcept { return mix(base + golden * ++draws); }
};

struct program_draws {
  std::uint64_t seed = default_seed;
  draw_point sequence = draw_point::at(stream_key(default_seed, 0, 0), 0); // stage 0
  std::vector<std::uint64_t> runs; // of each stage, by its number
};
inline program_draws program_random;
/// The point this thread draws from: the program's sequence, or the element whose
/// function a rand_stage evaluates on it.
inline constinit thread_local draw_point* current_draws = &program_random.sequence;

} // namespace detail

/// Restarts the program's random numbers (program::run does this with --seed): the
/// sequence from its first draw, every stage from its first run.
inline void seed_rand(std::uint64_t seed) noexcept {
  detail::program_random.seed = seed;
  detail::program_random.sequence = detail::draw_point::at(detail::stream_key(seed, 0, 0), 0);
  detail::program_random.runs.clear();
}
/// The script's rand(): 64 random bits.
inline std::uint64_t rand() noexcept { return detail::current_draws->next(); }
/// The script's rand(n): a value in [0, n), 0 for n = 0.
inline std::uint64_t rand(std::uint64_t n) noexcept {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(rand()) * n) >> 64);
}

/// One run of a stage whose function draws rand(): it evaluates the function for each
/// element with the draws of that element's position. Made each time the statement runs.
class rand_stage {
public:
  explicit rand_stage(std::uint64_t stage) {
    auto& runs = detail::program_random.runs;
    if (runs.size() <= stage) runs.resize(stage + 1);
    key_ = detail::stream_key(detail::program_random.seed, stage, runs[stage]++);
  }

  /// f() with the draws of position `position`.
  template <class F> decltype(auto) at(std::uint64_t position, F&& f) const {
    detail::draw_point point = detail::draw_point::at(key_, position);
    const draws_from scope(&point);
    return std::forward<F>(f)();
  }
  /// f() at the position after the last one evaluated (map and filter: the element's
  /// number in the stage's input).
  template <class F> decltype(auto) next(F&& f) { return at(next_position_++, std::forward<F>(f)); }

private:
  /// Makes this thread draw from `p` until it ends (also when f throws).
  struct draws_from {
    explicit draws_from(detail::draw_point* p) noexcept : outer(std::exchange(detail::current_draws, p)) {}
    ~draws_from() { detail::current_draws = outer; }
    draws_from(const draws_from&) = delete;
    draws_from& operator=(const draws_from&) = delete;
    detail::draw_point* outer;
  };
  std::uint64_t key_ = 0;
  std::uint64_t next_position_ = 0;
};

} // namespace flow
