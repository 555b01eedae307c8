#include "driver/installation.hpp"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace flow::driver {

const RuntimeLocation& runtimeLocation() {
  static const RuntimeLocation location = [] {
    RuntimeLocation l{FLOW_RUNTIME_INCLUDE_DIR, FLOW_RUNTIME_LIBRARY, FLOW_RUNTIME_PRECOMPILED}; // the build tree's
    std::error_code ec;
    const fs::path prefix = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
    if (!ec && fs::exists(prefix / "include" / "flow" / "program.hpp") &&
        fs::exists(prefix / "lib" / "libflow_runtime.a")) {
      l.includeDir = (prefix / "include").string();
      l.library = (prefix / "lib" / "libflow_runtime.a").string();
      l.precompiled = (prefix / "lib" / "flow" / "precompiled").string();
    }
    if (const char* dir = std::getenv("FLOW_RUNTIME_INCLUDE"); dir && *dir) l.includeDir = dir;
    if (const char* lib = std::getenv("FLOW_RUNTIME_LIBRARY"); lib && *lib) l.library = lib;
    return l;
  }();
  return location;
}

} // namespace flow::driver
