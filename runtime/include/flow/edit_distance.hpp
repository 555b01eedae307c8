#pragma once
// The Levenshtein distance between two names, for "did you mean ...?" hints: a program's
// unknown flags (flow::program), a script's unknown names (flowc's sema) and flowc's own
// unknown options. Inline so that flowc, which links only the planner's objects of the
// runtime, uses this one definition too.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace flow {

/// The fewest one-character insertions, deletions and replacements that turn `a` into `b`.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1); // distances of a's prefix so far to b's prefixes
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

} // namespace flow
