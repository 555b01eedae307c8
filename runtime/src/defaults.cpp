// The one thread policy of the runtime (flow/defaults.hpp): --threads, else the CPUs.
#include <atomic>

#include "flow/defaults.hpp"

namespace flow {

namespace {
std::atomic<unsigned> g_threads{0};
} // namespace

unsigned threads() noexcept {
  const unsigned t = g_threads.load(std::memory_order_relaxed);
  return t ? t : hardware_threads();
}

void set_threads(unsigned n) noexcept { g_threads.store(n, std::memory_order_relaxed); }

} // namespace flow
