// The asynchronous half of every file: request submission, closing after pending I/O.
#include "flow/io/file.hpp"

#include <cstdio>

#include "flow/io/error.hpp"

namespace flow::io {

file::file(std::string path, std::shared_ptr<request_queue> queue)
    : path_(std::move(path)),
      queue_(queue ? std::move(queue) : std::make_shared<request_queue>(path_)) {}

file::~file() {
  // Derived destructors close; this only guards against a derived class that forgot to.
  if (pending_.load() != 0) {
    std::fprintf(stderr, "flow: internal error: file '%s' destroyed with pending requests\n",
                 path_.c_str());
  }
}

void file::check_open(const char* action, std::uint64_t offset, std::size_t bytes) const {
  if (!is_open()) {
    throw closed_file_error(
        describe_failure(std::string(action) + " closed file", path_, offset, bytes, 0,
                         "The file was closed before this request was made; this is a bug "
                         "in the code using it (use the file only while it is open)."),
        path_, offset, bytes, 0);
  }
}

request_ptr file::submit(request_kind kind, void* buffer, std::uint64_t offset, std::size_t bytes,
                         std::size_t min_bytes, completion_handler on_complete) {
  check_open(kind == request_kind::read ? "cannot read from" : "cannot write to", offset, bytes);
  auto r = std::make_shared<request>(*this, kind, buffer, offset, bytes, min_bytes,
                                     std::move(on_complete));
  pending_.fetch_add(1, std::memory_order_acq_rel);
  queue_->submit(r);
  return r;
}

request_ptr file::aread(void* buffer, std::uint64_t offset, std::size_t bytes,
                        completion_handler on_complete) {
  return submit(request_kind::read, buffer, offset, bytes, bytes, std::move(on_complete));
}

request_ptr file::aread_partial(void* buffer, std::uint64_t offset, std::size_t bytes,
                                std::size_t min_bytes, completion_handler on_complete) {
  return submit(request_kind::read, buffer, offset, bytes, min_bytes, std::move(on_complete));
}

request_ptr file::awrite(const void* buffer, std::uint64_t offset, std::size_t bytes,
                         completion_handler on_complete) {
  // The worker only reads from a write's buffer; the request type holds one pointer kind.
  return submit(request_kind::write, const_cast<void*>(buffer), offset, bytes, bytes,
                std::move(on_complete));
}

void file::close() {
  if (!is_open()) return;
  detail::wait_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
  if (open_.exchange(false)) close_impl();
}

void file::close_noexcept() noexcept {
  try {
    close();
  } catch (...) {
  }
}

} // namespace flow::io
