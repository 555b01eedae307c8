// The runtime's version string, so an executable can report which runtime it was built with.
#include "flow/version.hpp"

namespace flow {
const char* runtime_version() { return "0.1.0"; }
} // namespace flow
