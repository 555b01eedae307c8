#pragma once
// A binary file written from a stream spread over the ranks (flow/ranks.hpp): the first
// rank writes its part to the file (flow::io::file_writer: atomically, renamed into
// place by finish()), every other rank keeps its part in a spool (an external vector),
// and finish() — a collective operation — appends the other ranks' parts in rank
// order, each sent to the first rank in messages of at most one block. The file holds
// what one process would have written, byte for byte.
//
// One rank: a file_writer, as without MPI.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flow/containers/vector.hpp"
#include "flow/defaults.hpp"
#include "flow/io/typed_file.hpp"
#include "flow/ranks.hpp"

namespace flow::ranks {

template <class T> class spread_writer {
public:
  /// `memory_bytes`: the writer's buffers on the first rank, the spool's elsewhere.
  spread_writer(const std::string& path, std::size_t memory_bytes, std::size_t block_bytes)
      : block_(block_bytes ? block_bytes : flow::default_block_bytes) {
    if (leads()) out_.emplace(path, memory_bytes);
    else spool_ = std::make_unique<containers::vector<T>>(std::max(memory_bytes, 2 * block_), block_);
  }

  void push(const T& v) {
    if (out_) out_->push(v);
    else spool_->push_back(v);
  }

  void finish() {
    const std::size_t per_message = std::max<std::size_t>(1, block_ / sizeof(T));
    if (out_) {
      for (int r = 1; r < size(); ++r)
        for (;;) {
          const std::vector<std::byte> bytes = world().receive(r);
          if (bytes.empty()) break;
          for (std::size_t at = 0; at < bytes.size(); at += sizeof(T)) {
            T v;
            std::memcpy(&v, bytes.data() + at, sizeof(T));
            out_->push(v);
          }
        }
      out_->finish();
      return;
    }
    std::vector<T> message;
    message.reserve(per_message);
    for (auto in = spool_->scan(); !in.empty(); ++in) {
      message.push_back(*in);
      if (message.size() == per_message) {
        world().send(0, std::as_bytes(std::span<const T>(message)));
        message.clear();
      }
    }
    if (!message.empty()) world().send(0, std::as_bytes(std::span<const T>(message)));
    world().send(0, {}); // the end of this rank's part
    spool_.reset();
    output_finished(); // as the first rank's file_writer does
  }

private:
  std::size_t block_;
  std::optional<io::file_writer<T>> out_;
  std::unique_ptr<containers::vector<T>> spool_;
};

} // namespace flow::ranks
