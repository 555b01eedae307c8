// Chunk planning for typed files.
#include "flow/io/typed_file.hpp"

#include <numeric>

#include <sys/stat.h>

namespace flow::io::detail {

chunking plan_chunks(std::size_t element_bytes, std::size_t memory_bytes, const std::string& path) {
  const std::size_t unit = std::lcm(element_bytes, direct_alignment);
  if (memory_bytes < unit) {
    throw std::invalid_argument(
        "flow: reading or writing '" + path + "' needs at least " + std::to_string(unit) +
        " bytes of buffer memory (a whole number of " + std::to_string(element_bytes) +
        "-byte elements that is also a multiple of 4096), but got " +
        std::to_string(memory_bytes));
  }
  const std::size_t chunks = memory_bytes >= 4 * unit ? 4 : memory_bytes / unit;
  return {memory_bytes / (chunks * unit) * unit, chunks};
}

} // namespace flow::io::detail
