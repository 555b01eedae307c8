#pragma once
// The registry of files the runtime must not leave behind (temporary disk files). They
// are removed by their owner's destructor on normal exit and while an exception
// unwinds; at exit() for owners that are never destroyed; and on every signal whose
// default action kills the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGABRT
// from an uncaught exception, SIGSEGV/SIGBUS/SIGFPE/SIGILL from a crash, SIGXCPU,
// SIGXFSZ, SIGUSR1/2, SIGALRM) by a handler that unlinks every registered path and then
// re-raises the signal with its previous disposition, so the process still dies of it
// (or runs the handler it had before). Signals the process ignores (SIGHUP under nohup,
// SIGPIPE in many servers) stay ignored. Only SIGKILL can leave a file behind.
#include <cstddef>
#include <string>

namespace flow::io::temp_files {

/// Registers `path` for removal; installs the exit and signal handlers on first use.
/// Throws std::length_error if the path is longer than 1023 bytes or more than 256 paths
/// are registered at once.
void add(const std::string& path);

/// Unlinks `path` now (if it exists) and forgets it.
void remove(const std::string& path) noexcept;

/// Forgets `path` without unlinking it (the file is to be kept after all).
void forget(const std::string& path) noexcept;

/// Number of registered paths (for tests).
std::size_t count() noexcept;

} // namespace flow::io::temp_files
