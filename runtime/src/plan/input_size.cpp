#include "flow/plan/input_size.hpp"

#include <algorithm>
#include <vector>

#include <unistd.h>

namespace flow::plan {

std::uint64_t estimated_lines(int fd, std::uint64_t size) {
  constexpr std::size_t sample_bytes = 1 << 20;
  std::vector<char> sample(static_cast<std::size_t>(std::min<std::uint64_t>(size, sample_bytes)));
  std::size_t got = 0;
  while (got < sample.size()) {
    const ssize_t n = ::pread(fd, sample.data() + got, sample.size() - got, static_cast<off_t>(got));
    if (n <= 0) break; // unreadable: the read itself will say so
    got += static_cast<std::size_t>(n);
  }
  if (got == 0) return size == 0 ? 0 : 1;
  const auto newlines = static_cast<std::uint64_t>(std::count(sample.data(), sample.data() + got, '\n'));
  if (got == size) return newlines + (sample[got - 1] == '\n' ? 0 : 1); // the whole file: exact
  // lines = size * newlines / got, rounded up (size < 2^63, newlines <= 2^20)
  const unsigned __int128 scaled = static_cast<unsigned __int128>(size) * std::max<std::uint64_t>(newlines, 1);
  return static_cast<std::uint64_t>((scaled + got - 1) / got);
}

} // namespace flow::plan
