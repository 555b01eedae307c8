#pragma once
// Work that happens inside a phase before its stream puts out elements, told to whoever
// draws progress: a sort's intermediate merge passes read and write all the data they
// merge while the phase's element count stays at 0. flow::program listens (for the
// progress bar and --trace); without a listener a report is one load and a compare.
//
//   flow::progress::listen(&on_pass, this);              // the program, at start
//   flow::progress::intermediate_merge(done, total);     // a runs merger, per batch
//
// Used from the thread that runs the script's body (the merger is constructed there).
#include <cstdint>

namespace flow::progress {

/// `done` of `total` elements of a sort's intermediate merge passes are merged (a report
/// with done == 0 starts them, done == total ends them).
using listener = void (*)(void* context, std::uint64_t done, std::uint64_t total) noexcept;

/// Installs `l` (nullptr: none) with the context it is called with.
void listen(listener l, void* context) noexcept;

/// Reports progress of intermediate merge passes to the listener, if any.
void intermediate_merge(std::uint64_t done, std::uint64_t total) noexcept;

} // namespace flow::progress
