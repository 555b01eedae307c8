#pragma once
// What flowc needs of the machine it runs on beyond the runtime (installation.hpp): a
// folder for temporary files. When the environment lacks it, flowc says so as the
// user's to fix (EnvironmentError: "flowc: error: …", exit status 1), not as its own bug.
#include <filesystem>
#include <stdexcept>

namespace flow::driver {

struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The folder for temporary files: $TMPDIR, else /tmp. Throws EnvironmentError, naming
/// $TMPDIR, when it is not a folder.
std::filesystem::path temporaryFolder();

} // namespace flow::driver
