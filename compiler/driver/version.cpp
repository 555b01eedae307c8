#include "driver/version.hpp"

#include <RuntimeMetaData.h>
#include <clang/Basic/Version.h>

namespace flow::driver {

std::string versionText() {
  // Both libraries are asked at run time, which proves they are linked, not just included.
  return std::string("flowc ") + FLOW_VERSION + " (the Flow compiler)\n" +
         "  ANTLR4 runtime " + antlr4::RuntimeMetaData::getRuntimeVersion() + "\n" +
         "  Clang libTooling: " + clang::getClangFullVersion() + "\n";
}

} // namespace flow::driver
