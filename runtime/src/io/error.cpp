// Message building for flow::io_error and its subclasses.
#include "flow/io/error.hpp"

#include <cerrno>
#include <cstring>

namespace flow {

io_error::io_error(const std::string& message, std::string path, std::uint64_t offset,
                   std::uint64_t bytes, int error_number)
    : std::runtime_error(message), path_(std::move(path)), offset_(offset), bytes_(bytes),
      error_number_(error_number) {}

namespace io {

std::string describe_failure(std::string_view action, std::string_view path, std::uint64_t offset,
                             std::uint64_t bytes, int error_number, std::string_view advice) {
  std::string m = "flow: ";
  m += action;
  if (!path.empty()) {
    m += " '";
    m += path;
    m += "'";
  }
  if (bytes != 0 || offset != 0) {
    m += " (offset " + std::to_string(offset) + ", " + std::to_string(bytes) + " bytes)";
  }
  if (error_number != 0) {
    m += ": ";
    m += std::strerror(error_number);
    m += " (errno " + std::to_string(error_number) + ")";
  }
  m += ".";
  if (!advice.empty()) {
    m += " ";
    m += advice;
  }
  return m;
}

std::string_view advice_for(int error_number) {
  switch (error_number) {
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
    return "Free space on that file system, or give the program another or a larger disk "
           "with --disk PATH[:SIZE].";
  case ENOENT:
  case ENOTDIR:
    return "Check that the path exists and its directories are spelled right.";
  case EACCES:
  case EPERM:
  case EROFS:
    return "The location is not writable (or readable) for this process: choose another "
           "path, e.g. with --disk PATH, or fix its permissions.";
  case EBADF:
    return "The file was not opened for this kind of access (e.g. written while opened "
           "read-only); this is a bug in the caller.";
  case EIO:
    return "The device reported a hardware or file system error; check the disk (dmesg).";
  case EINVAL:
    return "The file system refused the request's alignment or size; try --direct off.";
  default:
    return "";
  }
}

void throw_output_error(const std::string& path, std::uint64_t offset, std::uint64_t bytes, int error_number) {
  if (error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG) {
    throw disk_full_error(describe_failure("cannot write to", path, offset, bytes, error_number, output_full_advice),
                          path, offset, bytes, error_number);
  }
  throw_system_error("cannot write to", path, offset, bytes, error_number);
}

void throw_system_error(std::string_view action, const std::string& path, std::uint64_t offset,
                        std::uint64_t bytes, int error_number) {
  std::string message =
      describe_failure(action, path, offset, bytes, error_number, advice_for(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG) {
    throw disk_full_error(message, path, offset, bytes, error_number);
  }
  throw io_error(message, path, offset, bytes, error_number);
}

} // namespace io
} // namespace flow
