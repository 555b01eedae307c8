#include "driver/precompiled_header.hpp"

#include "codegen/codegen.hpp"
#include "driver/installation.hpp"
#include "driver/run_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace flow::driver {

namespace {

/// The text of the header that is precompiled: every header a generated program may
/// include. A program includes them again itself; their include guards make that free.
std::string headerText() {
  std::string text = "// Precompiled by flowc: the runtime headers generated programs include.\n";
  for (const std::string& h : codegen::runtimeHeaders()) text += "#include \"" + h + "\"\n";
  return text;
}

/// The key of a precompiled header: the compile flags, the header's text and the runtime's
/// headers (a changed header is a new key, never a stale header).
std::uint64_t key(const std::vector<std::string>& flags, const std::string& includeDir) {
  std::uint64_t hash = codegen::fnv1a(headerText(), runtimeHeadersHash(includeDir));
  for (const std::string& flag : flags) hash = codegen::fnv1a(flag + '\0', hash);
  return hash;
}

} // namespace

std::uint64_t runtimeHeadersHash(const std::string& includeDir) {
  static std::map<std::string, std::uint64_t> known; // a build asks twice (the header, the classes)
  if (auto it = known.find(includeDir); it != known.end()) return it->second;
  std::uint64_t hash = codegen::fnv1a("");
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(includeDir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    hash = codegen::fnv1a(file.string() + '\0' + content.str(), hash);
  }
  return known[includeDir] = hash;
}

std::vector<std::string> precompiledRuntime(const std::vector<std::string>& flags, const fs::path& cache,
                                            const std::string& runtimeIncludeDir, bool verbose) {
  const fs::path dir = cache / ("runtime-" + codegen::hex64(key(flags, runtimeIncludeDir)));
  const fs::path header = dir / "flow_runtime.hpp";
  const fs::path precompiled = dir / "flow_runtime.hpp.gch";
  const fs::path failed = dir / "failed"; // this compiler cannot: not tried again
  auto without = [&](const std::string& why) {
    if (verbose) std::cerr << "flowc: not using a precompiled runtime: " << why << "\n";
    return std::vector<std::string>{};
  };
  std::error_code ec;
  // Made when flowc was built or installed (flowc cache precompile), for these flags.
  const fs::path made = fs::path(runtimeLocation().precompiled) / dir.filename() / "flow_runtime.hpp";
  if (fs::exists(made.string() + ".gch", ec)) return {"-include", made.string()};
  if (fs::exists(precompiled, ec)) return {"-include", header.string()};
  if (fs::exists(failed, ec)) return without("the compiler could not make one (" + failed.string() + ")");
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return without(dir.string() + ": " + std::strerror(errno));
  // One flowc builds it while the others wait (parallel builds, a test suite).
  const int lock = ::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock < 0) return without((dir / "lock").string() + ": " + std::strerror(errno));
  while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  std::vector<std::string> result;
  if (fs::exists(precompiled, ec)) {
    result = {"-include", header.string()};
  } else if (!fs::exists(failed, ec)) {
    std::ofstream(header) << headerText();
    const std::string partial = precompiled.string() + ".partial." + std::to_string(getpid());
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"-x", "c++-header", header.string(), "-o", partial});
    if (verbose) {
      for (const std::string& a : args) std::cerr << a << ' ';
      std::cerr << '\n';
    }
    const CommandResult built = runCommand(args, "/dev/null");
    if (built.execError == 0 && built.status == 0 && ::rename(partial.c_str(), precompiled.c_str()) == 0) {
      result = {"-include", header.string()};
    } else {
      fs::remove(partial, ec);
      std::ofstream(failed) << "the compile of " << header.string() << " failed\n";
    }
  }
  ::close(lock); // releases the lock
  return result.empty() ? without("the compiler could not make one") : result;
}

} // namespace flow::driver
