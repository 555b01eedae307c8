#include "driver/cache.hpp"

#include "codegen/codegen.hpp"
#include "driver/environment.hpp"
#include "driver/frontend.hpp"
#include "driver/precompiled_header.hpp"

#include "flow/format.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace flow::driver {

std::optional<fs::path> cacheDirectory(bool quiet) {
  const char* flowCache = std::getenv("FLOW_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir = flowCache && *flowCache ? fs::path(flowCache)
                 : xdg && *xdg          ? fs::path(xdg) / "flow"
                 : home && *home        ? fs::path(home) / ".cache" / "flow"
                                        : temporaryFolder() / ("flow-cache-" + std::to_string(geteuid()));
  const std::string advice = "; set FLOW_CACHE_DIR to a folder of your own";
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec); // the parents: the usual modes
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (!quiet)
      std::cerr << "flowc: error: cannot create the cache folder '" << dir.string() << "': " << std::strerror(errno)
                << advice << "\n";
    return std::nullopt;
  }
  struct stat st {};
  std::string problem;
  if (::lstat(dir.c_str(), &st) != 0) problem = std::strerror(errno);
  else if (S_ISLNK(st.st_mode)) problem = "it is a symbolic link";
  else if (!S_ISDIR(st.st_mode)) problem = "it is not a folder";
  else if (st.st_uid != geteuid()) problem = "it belongs to user " + std::to_string(st.st_uid) + ", not to you";
  else if (st.st_mode & 022) { // others may have planted files in it: nothing there is to be trusted
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    problem = std::string("others may write in it (mode ") + mode + "); empty it and chmod 700 it";
  } else if ((st.st_mode & 077) && ::chmod(dir.c_str(), 0700) != 0) { // only readable: made private
    problem = std::string("cannot make it private (chmod 700): ") + std::strerror(errno);
  }
  if (!problem.empty()) {
    if (!quiet)
      std::cerr << "flowc: error: refusing the cache folder '" << dir.string() << "': " << problem << advice << "\n";
    return std::nullopt;
  }
  return dir;
}

namespace {

/// The file a command word runs: itself when it names a path, else the first match on
/// $PATH; empty when there is none.
fs::path programFile(const std::string& word) {
  if (word.find('/') != std::string::npos) return word;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / word;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// What the cache holds, by the names flowc gives its entries.
const std::regex kProgram(".*-[0-9a-f]{16}"); // a program flowc run built (+ .cpp, .headers)
const std::regex kPart("[0-9a-f]{16}\\.(o|cpp|needs)");  // in parts/: a class's object, source, needs
const std::regex kRuntime("runtime-[0-9a-f]{16}"); // a precompiled runtime (a folder)
const std::regex kLeftover(".*\\.partial\\.[0-9]+.*"); // being written (or left by a killed flowc)

/// One entry of the cache: its files, their bytes, and when it was last used.
struct Entry {
  std::vector<fs::path> files;
  uint64_t bytes = 0;
  fs::file_time_type used{};
};

/// The programs and compiled classes in the cache, each with its companion files (a
/// program's C++ and header list, a class's source); an entry was last used when the
/// latest of its files was written or marked used. `leftovers`, if given, gets the files
/// of builds being written (or left by a killed flowc) at the top and in parts/, which
/// only `clean` removes: one walk of each folder.
std::vector<Entry> trimmable(const fs::path& cache, std::vector<fs::path>* leftovers = nullptr) {
  std::map<fs::path, Entry> entries; // by the program's path, or a class's without extension
  std::error_code ec;
  auto add = [&](const fs::path& entryPath, const fs::path& file) {
    std::error_code e;
    Entry& entry = entries[entryPath];
    entry.files.push_back(file);
    // A file with several names (a class's object and its group's) counts once in all.
    entry.bytes += fs::file_size(file, e) / std::max<uintmax_t>(1, fs::hard_link_count(file, e));
    entry.used = std::max(entry.used, fs::last_write_time(file, e));
  };
  for (const auto& f : fs::directory_iterator(cache, ec)) {
    std::string name = f.path().filename().string();
    if (!f.is_regular_file(ec)) continue;
    if (std::regex_match(name, kLeftover)) {
      if (leftovers) leftovers->push_back(f.path());
      continue;
    }
    for (const std::string companion : {".cpp", ".headers"})
      if (name.ends_with(companion) && std::regex_match(name.substr(0, name.size() - companion.size()), kProgram))
        name.resize(name.size() - companion.size());
    if (std::regex_match(name, kProgram)) add(cache / name, f.path());
  }
  for (const auto& f : fs::directory_iterator(cache / "parts", ec)) {
    const std::string name = f.path().filename().string();
    if (f.is_regular_file(ec) && std::regex_match(name, kPart)) add(cache / "parts" / name.substr(0, 16), f.path());
    else if (leftovers && std::regex_match(name, kLeftover)) leftovers->push_back(f.path());
  }
  std::vector<Entry> list;
  for (auto& [path, entry] : entries) list.push_back(std::move(entry));
  return list;
}

uint64_t folderBytes(const fs::path& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  return bytes;
}

} // namespace

fs::path partObject(const fs::path& cache, const std::string& source, const std::vector<std::string>& flags,
                    const std::string& runtimeIncludeDir) {
  // The objects' format is in the key too: since 2026-12-07 an object holds only classes
  // of one type set and has a .needs list; objects made before may hold other classes.
  // So is flowc itself: an object may hold a scalar's order (fl_asc_u32) that its key's
  // source does not, which another flowc may write otherwise.
  uint64_t key = codegen::fnv1a(source + "\nobjects of one type set, with .needs\n", runtimeHeadersHash(runtimeIncludeDir));
  struct stat self {};
  if (::stat("/proc/self/exe", &self) == 0)
    key = codegen::fnv1a(std::to_string(self.st_size) + '\0' + std::to_string(self.st_mtime), key);
  for (const std::string& flag : flags) {
    key = codegen::fnv1a(flag + '\0', key);
    // The compiler itself: another version (an upgrade) makes other objects.
    if (flag.empty() || flag[0] == '-') continue;
    struct stat st {};
    const fs::path file = programFile(flag);
    if (!file.empty() && ::stat(file.c_str(), &st) == 0)
      key = codegen::fnv1a(file.string() + '\0' + std::to_string(st.st_size) + '\0' + std::to_string(st.st_mtime), key);
  }
  return cache / "parts" / (codegen::hex64(key) + ".o");
}

std::optional<std::vector<fs::path>> neededObjects(const fs::path& object) {
  std::vector<fs::path> found;
  std::set<fs::path> seen{object};
  std::vector<fs::path> todo{object};
  std::error_code ec;
  while (!todo.empty()) {
    const fs::path o = todo.back();
    todo.pop_back();
    std::ifstream list(fs::path(o).replace_extension(".needs"));
    if (!list) return std::nullopt; // an object stored before the lists were kept
    for (std::string name; std::getline(list, name);) {
      const fs::path need = o.parent_path() / name;
      if (name.empty() || !seen.insert(need).second) continue;
      if (!fs::exists(need, ec)) return std::nullopt; // trimmed from the cache
      found.push_back(need);
      todo.push_back(need);
    }
  }
  return found;
}

void storePartObject(const fs::path& compiled, const fs::path& object, const std::vector<std::string>& needs) {
  // Builds store one at a time (an exclusive lock on parts.lock), and an object already
  // there with all it needs stays as it is: another build may have found it and be about
  // to link it with the list it read. Else (none, or its list names one that is gone: no
  // build links it) the list and then the object are written aside and renamed into
  // place whole, so that a build finds a complete pair or no object.
  const int lock = ::open((object.parent_path().parent_path() / "parts.lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  struct closer {
    int fd;
    ~closer() {
      if (fd >= 0) ::close(fd); // releases the lock
    }
  } closeLock{lock};
  if (lock >= 0)
    while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
    }
  std::error_code ec;
  if (fs::exists(object, ec) && neededObjects(object)) return;
  fs::remove(object, ec);
  const std::string aside = ".partial." + std::to_string(getpid());
  const fs::path list = fs::path(object).replace_extension(".needs");
  {
    std::ofstream out(list.string() + aside, std::ios::trunc);
    for (const std::string& name : needs) out << name << '\n';
  }
  fs::rename(list.string() + aside, list, ec);
  // A link to the group's object where the folder allows hard links, else a copy.
  const fs::path copy = object.string() + aside;
  fs::remove(copy, ec);
  if (::link(compiled.c_str(), copy.c_str()) != 0) fs::copy_file(compiled, copy, ec);
  fs::rename(copy, object, ec);
  fs::remove(copy, ec);
}

void markUsed(const fs::path& entry) {
  std::error_code ec;
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
}

std::optional<uint64_t> cacheLimit() {
  const char* text = std::getenv("FLOW_CACHE_SIZE");
  if (!text || !*text) return uint64_t{2} << 30;
  std::string error;
  std::optional<uint64_t> bytes = parseSizeArgument(text, error);
  if (!bytes) std::cerr << "flowc: warning: FLOW_CACHE_SIZE='" << text << "': " << error << "; nothing is removed from the cache\n";
  return bytes;
}

CacheHold::CacheHold(const fs::path& cache) {
  fd_ = ::open((cache / "lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_SH) != 0)
    if (errno != EINTR) { // no locks on this file system: builds go on without
      ::close(fd_);
      fd_ = -1;
      return;
    }
}

CacheHold::~CacheHold() {
  if (fd_ >= 0) ::close(fd_); // and its lock
}

void trimCache(const fs::path& cache, const fs::path& keep) {
  const std::optional<uint64_t> limit = cacheLimit();
  if (!limit) return;
  // Only while no build holds the cache (CacheHold); the lock goes with the descriptor.
  const int lock = ::open((cache / "lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return;
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } closeLock{lock};
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) return;
  std::vector<Entry> entries = trimmable(cache);
  uint64_t total = 0;
  for (const Entry& e : entries) total += e.bytes;
  if (total <= *limit) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  std::error_code ec;
  for (const Entry& e : entries) {
    if (total <= *limit) break;
    if (std::find(e.files.begin(), e.files.end(), keep) != e.files.end()) continue;
    for (const fs::path& f : e.files) fs::remove(f, ec);
    total -= e.bytes;
  }
}

int runCache(const std::vector<std::string>& words, const BuildOptions& build) {
  const bool clean = !words.empty() && words[0] == "clean";
  const bool precompile = !words.empty() && words[0] == "precompile";
  if (words.size() > 1 || (!words.empty() && !clean && !precompile)) {
    std::cerr << "flowc: error: 'flowc cache' takes nothing, 'clean' or 'precompile', not '" << words.back() << "'\n";
    return 2;
  }
  if (precompile) return runPrecompile(build);
  std::optional<fs::path> cache = cacheDirectory();
  if (!cache) return 1;
  std::error_code ec;
  if (clean) {
    // Only what flowc made: the folder may be one the user chose, with other files in it.
    uint64_t bytes = 0;
    std::vector<fs::path> leftovers;
    for (const Entry& e : trimmable(*cache, &leftovers)) {
      bytes += e.bytes;
      for (const fs::path& f : e.files) fs::remove(f, ec);
    }
    for (const fs::path& f : leftovers) {
      const uintmax_t size = fs::file_size(f, ec);
      if (!ec) bytes += size;
      fs::remove(f, ec);
    }
    for (const auto& f : fs::directory_iterator(*cache, ec)) {
      if (std::regex_match(f.path().filename().string(), kRuntime) && f.is_directory(ec)) {
        bytes += folderBytes(f.path());
        fs::remove_all(f.path(), ec);
      }
    }
    fs::remove(*cache / "parts", ec); // only when empty
    fs::remove(*cache / "lock", ec);  // builds' CacheHold
    fs::remove(*cache / "parts.lock", ec); // builds' storePartObject
    std::cout << "flowc: removed " << flow::format_bytes(static_cast<double>(bytes)) << " from " << cache->string()
              << "\n";
    return 0;
  }
  uint64_t programs = 0, programBytes = 0, parts = 0, partBytes = 0, runtimes = 0, runtimeBytes = 0;
  for (const Entry& e : trimmable(*cache)) {
    const bool part = e.files.front().parent_path().filename() == "parts";
    (part ? parts : programs) += 1;
    (part ? partBytes : programBytes) += e.bytes;
  }
  for (const auto& f : fs::directory_iterator(*cache, ec))
    if (std::regex_match(f.path().filename().string(), kRuntime) && f.is_directory(ec)) {
      ++runtimes;
      runtimeBytes += folderBytes(f.path());
    }
  const std::optional<uint64_t> limit = cacheLimit();
  if (!limit) return 1;
  std::cout << "flowc's cache: " << cache->string() << "\n"
            << "  programs flowc run built:          " << programs << " (" << flow::format_bytes(static_cast<double>(programBytes)) << ")\n"
            << "  runtime classes compiled apart:    " << parts << " (" << flow::format_bytes(static_cast<double>(partBytes)) << ")\n"
            << "  precompiled runtime headers:       " << runtimes << " (" << flow::format_bytes(static_cast<double>(runtimeBytes)) << ")\n"
            << "  kept within (FLOW_CACHE_SIZE):     " << flow::format_bytes(static_cast<double>(*limit))
            << " of programs and classes, the least recently used removed first\n"
            << "flowc cache clean removes them all.\n";
  return 0;
}

} // namespace flow::driver
