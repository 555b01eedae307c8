#pragma once
// flowc's cache: the programs `flowc run` built, the runtime classes of a script's types
// compiled apart (shared by every script with the same types), and the precompiled
// runtime headers. Its folder, its entries' names and ages, its size limit, and `flowc
// cache` (what it holds; `clean` empties it). docs/install.md describes it.
#include <cstdint>
#include "driver/emit_command.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace flow::driver {

/// The folder of flowc's cache: $FLOW_CACHE_DIR, else $XDG_CACHE_HOME/flow, else
/// ~/.cache/flow, else (no HOME) /tmp/flow-cache-UID, created with mode 0700 and refused
/// when others could have put files in it (it holds executables flowc runs). `quiet`:
/// no message when it cannot be used.
std::optional<std::filesystem::path> cacheDirectory(bool quiet = false);

/// Where the object of a runtime class compiled apart is kept: `parts/KEY.o` in the
/// cache (its source beside it, KEY.cpp), KEY a hash of the source, of `flags` (the whole
/// compile command but the file names) and of the compiler and the runtime headers it
/// uses, so that any change makes another key and an object is never stale.
std::filesystem::path partObject(const std::filesystem::path& cache, const std::string& source,
                                 const std::vector<std::string>& flags, const std::string& runtimeIncludeDir);

/// A class's object is its group's (the classes one compile made together), whose code
/// calls the classes that script compiled in other groups: `parts/KEY.needs` names their
/// objects, one file name a line, and they are linked with it. The objects a cached class
/// object needs, and theirs in turn; nullopt when its list or one of them is missing
/// (the class is then compiled again).
std::optional<std::vector<std::filesystem::path>> neededObjects(const std::filesystem::path& object);

/// Puts `compiled` (a group's object) into the cache as the class object `object`, with
/// `needs` (file names in parts/) as its list, unless another build put one there with
/// all it needs (first stored wins: a build may be linking it).
void storePartObject(const std::filesystem::path& compiled, const std::filesystem::path& object,
                     const std::vector<std::string>& needs);

/// Says that a cache entry (a program, a class's object) was used now: the cache keeps
/// the most recently used within its size.
void markUsed(const std::filesystem::path& entry);

/// The most bytes of programs and compiled classes the cache keeps: $FLOW_CACHE_SIZE
/// (e.g. 500MiB), else 2 GiB. Empty after reporting a value that is not a size.
std::optional<uint64_t> cacheLimit();

/// A build in progress (compile() holds one from before it looks for compiled classes
/// until it has linked them): while any build holds one, no flowc trims the cache, which
/// could remove a class another build found there and is about to link. A shared lock
/// (flock) on the cache's `lock` file; nothing when the cache cannot be locked.
class CacheHold {
public:
  explicit CacheHold(const std::filesystem::path& cache);
  ~CacheHold();
  CacheHold(const CacheHold&) = delete;
  CacheHold& operator=(const CacheHold&) = delete;

private:
  int fd_ = -1;
};

/// Removes the least recently used programs and compiled classes until they take at
/// most cacheLimit() bytes (never `keep`, the entry just made), unless another build
/// holds the cache (CacheHold): then the next build's trim does it. A file with several
/// names (a class's object linked to its group's) counts once. Precompiled runtimes are
/// not counted (one per compiler command; `flowc cache clean` removes them).
void trimCache(const std::filesystem::path& cache, const std::filesystem::path& keep);

/// `flowc cache` (what the cache holds, and its limit), `flowc cache clean` (remove
/// everything flowc put in it) and `flowc cache precompile` (make the precompiled runtime
/// for builds with `build`'s compiler and flags): flowc's exit status.
int runCache(const std::vector<std::string>& words, const BuildOptions& build);

} // namespace flow::driver
