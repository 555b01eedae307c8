#pragma once
// The runtime's headers precompiled once per compiler command into flowc's cache, so
// that each build of a program loads them (~0.1 s) instead of parsing 117 000 lines
// (~1 s). Used by `flowc build` and `flowc run`; docs/install.md describes the cache.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace flow::driver {

/// The words to add to a compile made with `flags` (the compiler and every option that
/// changes the code: -std, -O, -g, -I of the runtime, $CXXFLAGS …) so that it uses the
/// precompiled runtime in `cache`, building it first if no other flowc has: `-include
/// HEADER` with HEADER.gch beside it. Empty when it cannot be built (the compile then
/// parses the headers as before; `verbose` says why).
std::vector<std::string> precompiledRuntime(const std::vector<std::string>& flags, const std::filesystem::path& cache,
                                            const std::string& runtimeIncludeDir, bool verbose);

/// A hash of every file of the runtime's include folder (names and contents): part of
/// the key of everything flowc's cache keeps that was compiled from them.
std::uint64_t runtimeHeadersHash(const std::string& includeDir);

} // namespace flow::driver
