#pragma once
// For a case the compiler's own invariants rule out (LLVM's llvm_unreachable): a switch
// over every kind that falls through, a node sema has already rejected reaching codegen.
// Returning a placeholder there ("0", an empty string) would turn a compiler bug into
// wrong C++ or a wrong plan without a word; this stops instead. It throws
// std::logic_error, which the driver reports as "flowc: internal error: WHY" with exit
// status 3 (driver/main.cpp), so a bug costs one run, not a crash. Never for a user's
// mistake: those are diagnostics (ast/diagnostics.hpp).
#include <stdexcept>

namespace flow {

/// Stops compilation: `why` says which invariant broke, prefixed by the pass
/// ("codegen: …").
[[noreturn]] inline void unreachable(const char* why) { throw std::logic_error(why); }

} // namespace flow
