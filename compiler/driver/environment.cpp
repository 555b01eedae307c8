#include "driver/environment.hpp"

#include <cstdlib>
#include <string>
#include <system_error>

namespace flow::driver {

std::filesystem::path temporaryFolder() {
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::temp_directory_path(ec);
  if (!ec) return folder;
  const char* tmpdir = std::getenv("TMPDIR");
  throw EnvironmentError(std::string("no folder for temporary files: ") +
                         (tmpdir && *tmpdir ? "$TMPDIR is '" + std::string(tmpdir) + "', which is not a folder"
                                            : "/tmp is not a folder") +
                         " (" + ec.message() + "); set TMPDIR to a folder you can write");
}

} // namespace flow::driver
