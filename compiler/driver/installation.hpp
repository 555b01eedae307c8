#pragma once
// Where flowc finds the runtime that generated programs are compiled against: beside
// itself when installed (<prefix>/bin/flowc with <prefix>/include/flow/ and
// <prefix>/lib/libflow_runtime.a), else the build tree it was built in; a copied or
// moved installation works the same. $FLOW_RUNTIME_INCLUDE and $FLOW_RUNTIME_LIBRARY
// override both (docs/install.md). The build and the installation also precompile the
// runtime's headers for flowc's default compile, so that a first build need not.
#include <string>

namespace flow::driver {

struct RuntimeLocation {
  std::string includeDir; // holds flow/program.hpp
  std::string library;    // libflow_runtime.a
  std::string precompiled; // a cache folder holding the precompiled runtime (driver/precompiled_header.hpp)
};

const RuntimeLocation& runtimeLocation();

} // namespace flow::driver
