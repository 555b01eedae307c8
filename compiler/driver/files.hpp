#pragma once
// Files flowc writes: whole or not at all.
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace flow::driver {

/// Writes `contents` to a new file `path` (replacing an older one) through a file of its
/// own created with O_EXCL|O_NOFOLLOW and renamed into place: never through a symbolic
/// link, never half-written. `mode` is before the umask. Reports a failure on stderr.
bool writeNewFile(const std::filesystem::path& path, const std::string& contents, mode_t mode);

} // namespace flow::driver
