#include "driver/files.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

namespace flow::driver {

bool writeNewFile(const std::filesystem::path& path, const std::string& contents, mode_t mode) {
  const std::string partial = path.string() + ".partial." + std::to_string(getpid());
  ::unlink(partial.c_str()); // a leftover of a killed run of this pid
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  bool ok = fd >= 0;
  for (std::size_t done = 0; ok && done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int error = errno;
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (ok && ::rename(partial.c_str(), path.c_str()) == 0) return true;
  std::cerr << "flowc: error: cannot write '" << path.string() << "': " << std::strerror(ok ? errno : error) << "\n";
  ::unlink(partial.c_str());
  return false;
}

} // namespace flow::driver
