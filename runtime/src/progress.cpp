// The listener of work done before a phase's first element (flow/progress.hpp).
#include "flow/progress.hpp"

namespace flow::progress {

namespace {
listener g_listener = nullptr;
void* g_context = nullptr;
} // namespace

void listen(listener l, void* context) noexcept {
  g_listener = l;
  g_context = context;
}

void intermediate_merge(std::uint64_t done, std::uint64_t total) noexcept {
  if (g_listener) g_listener(g_context, done, total);
}

} // namespace flow::progress
