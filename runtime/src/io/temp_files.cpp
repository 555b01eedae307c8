// The temporary-file registry. The signal handler may only use async-signal-safe calls,
// so paths live in a fixed static table (no allocation, no locks) and each slot's state
// is an atomic that a handler can read at any moment.
#include "flow/io/temp_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace flow::io::temp_files {
namespace {

constexpr std::size_t max_paths = 256;
constexpr std::size_t max_path_bytes = 1024;
enum slot_state : int { free_slot = 0, filling = 1, in_use = 2 };

char paths[max_paths][max_path_bytes];
std::atomic<int> states[max_paths];

// Every signal whose default action ends the process: an interrupt, a kill, a crash in
// user code (SEGV, BUS, FPE, ILL), `prog | head` (PIPE), limits (XCPU, XFSZ), and an
// uncaught exception (ABRT). For a fault signal the re-raised signal's default action
// runs when the faulting instruction is retried after the handler.
constexpr int handled_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGABRT, SIGPIPE,
                                   SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGXCPU, SIGXFSZ,
                                   SIGUSR1, SIGUSR2, SIGALRM};
constexpr std::size_t signal_count = sizeof handled_signals / sizeof handled_signals[0];
struct sigaction previous_actions[signal_count];

void unlink_all() noexcept {
  for (std::size_t i = 0; i < max_paths; ++i) {
    int expected = in_use;
    // Claim the slot so that a concurrent remove() and the handler unlink it only once.
    if (states[i].compare_exchange_strong(expected, filling)) {
      ::unlink(paths[i]);
      states[i].store(free_slot);
    }
  }
}

void on_fatal_signal(int sig) {
  unlink_all();
  for (std::size_t i = 0; i < signal_count; ++i) {
    if (handled_signals[i] == sig) ::sigaction(sig, &previous_actions[i], nullptr);
  }
  // Delivered when this handler returns (the signal is blocked while it runs), now with
  // the previous disposition: by default the process dies of the signal as usual.
  ::raise(sig);
}

void install_handlers() {
  std::atexit(unlink_all);
  for (std::size_t i = 0; i < signal_count; ++i) {
    struct sigaction current;
    ::sigaction(handled_signals[i], nullptr, &current);
    if (current.sa_handler == SIG_IGN) continue; // the user wants it ignored: keep that
    struct sigaction ours;
    std::memset(&ours, 0, sizeof ours);
    ours.sa_handler = on_fatal_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_RESTART;
    ::sigaction(handled_signals[i], &ours, &previous_actions[i]);
  }
}

} // namespace

void add(const std::string& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.size() >= max_path_bytes) {
    throw std::length_error("flow: temporary file path longer than 1023 bytes: " + path);
  }
  for (std::size_t i = 0; i < max_paths; ++i) {
    int expected = free_slot;
    if (states[i].compare_exchange_strong(expected, filling)) {
      std::memcpy(paths[i], path.c_str(), path.size() + 1);
      states[i].store(in_use);
      return;
    }
  }
  throw std::length_error("flow: more than 256 temporary files at once; cannot register " + path);
}

namespace {
void release(const std::string& path, bool unlink_it) noexcept {
  for (std::size_t i = 0; i < max_paths; ++i) {
    int expected = in_use;
    if (states[i].load() != in_use || path != paths[i]) continue;
    if (states[i].compare_exchange_strong(expected, filling)) {
      if (unlink_it) ::unlink(paths[i]);
      states[i].store(free_slot);
      return;
    }
  }
}
} // namespace

void remove(const std::string& path) noexcept { release(path, true); }
void forget(const std::string& path) noexcept { release(path, false); }

std::size_t count() noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < max_paths; ++i) n += states[i].load() == in_use;
  return n;
}

} // namespace flow::io::temp_files
