#pragma once
// A file held in main memory: the same asynchronous interface and statistics as a disk
// file, without touching a disk. Used by tests and by `--disk :memory:`.
#include <cstddef>
#include <mutex>
#include <vector>

#include "flow/io/file.hpp"

namespace flow::io {

class memory_file final : public file {
public:
  explicit memory_file(std::string name, std::shared_ptr<request_queue> queue = nullptr);
  ~memory_file() override;

  std::uint64_t size() override;
  void set_size(std::uint64_t bytes) override;

protected:
  std::size_t read_at(void* buffer, std::uint64_t offset, std::size_t bytes,
                      std::size_t min_bytes) override;
  void write_at(const void* buffer, std::uint64_t offset, std::size_t bytes) override;
  void close_impl() noexcept override;

private:
  std::mutex mutex_; // size() may be asked from any thread while the worker writes
  std::vector<std::byte> data_;
};

} // namespace flow::io
