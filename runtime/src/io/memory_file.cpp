// memory_file: a growable byte vector behind the asynchronous file interface.
#include "flow/io/memory_file.hpp"

#include <algorithm>
#include <cstring>

#include "flow/io/error.hpp"

namespace flow::io {

memory_file::memory_file(std::string name, std::shared_ptr<request_queue> queue)
    : file(std::move(name), std::move(queue)) {}

memory_file::~memory_file() { close_noexcept(); }

void memory_file::close_impl() noexcept {
  std::lock_guard lock(mutex_);
  std::vector<std::byte>().swap(data_);
}

std::uint64_t memory_file::size() {
  check_open("cannot ask the size of", 0, 0);
  std::lock_guard lock(mutex_);
  return data_.size();
}

void memory_file::set_size(std::uint64_t bytes) {
  check_open("cannot resize", 0, bytes);
  std::lock_guard lock(mutex_);
  data_.resize(bytes);
}

std::size_t memory_file::read_at(void* buffer, std::uint64_t offset, std::size_t bytes,
                                 std::size_t min_bytes) {
  std::lock_guard lock(mutex_);
  const std::size_t available =
      offset >= data_.size() ? 0 : std::min<std::size_t>(bytes, data_.size() - offset);
  if (available < min_bytes) {
    throw short_read_error(
        describe_failure("short read from", path(), offset, bytes, 0,
                         "Only " + std::to_string(available) + " bytes were there: the memory "
                             "file has " + std::to_string(data_.size()) + " bytes."),
        path(), offset, bytes, 0);
  }
  if (available) std::memcpy(buffer, data_.data() + offset, available);
  return available;
}

void memory_file::write_at(const void* buffer, std::uint64_t offset, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (offset + bytes > data_.size()) data_.resize(offset + bytes);
  std::memcpy(data_.data() + offset, buffer, bytes);
}

} // namespace flow::io
