#pragma once
// The Levenshtein distance between two names, for "did you mean ...?" hints: a program's
// unknown flags (flow::program), a script's unknown names (flowc's sema) and flowc's own
// unknown options. Inline so that flowc, which links only the planner's objects of the
// runtime, uses this one definition too.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace flow {

/// The fewest one-character insertions, deletions, replacements and swaps of two
/// neighbouring characters that turn `a` into `b` (the optimal string alignment
/// distance: `biuld` is one swap from `build`, as a typist sees it).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Distances of a's prefixes of length i-2, i-1 and i to b's prefixes.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::swap(before, previous);
    std::swap(previous, row);
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
  }
  return row[b.size()];
}

/// The most edits a typo of `name` is taken to have: one for names of up to three
/// characters, two for longer ones. The one rule of every "did you mean" hint.
inline std::size_t max_typo_edits(std::string_view name) { return name.size() <= 3 ? 1 : 2; }

/// Whether `candidate` is near enough to `name` to be what a typo of it meant (and is
/// not `name` itself).
inline bool near_name(std::string_view name, std::string_view candidate) {
  const std::size_t d = edit_distance(name, candidate);
  return d > 0 && d <= max_typo_edits(name);
}

/// The candidate nearest to `name` by near_name's rule (the first of equally near
/// ones), or "" when none is near. `candidates`: strings or anything they convert from.
template <class Candidates> std::string nearest_name(std::string_view name, const Candidates& candidates) {
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    const std::string_view candidate(c);
    const std::size_t d = edit_distance(name, candidate);
    if (d > 0 && d <= max_typo_edits(name) && (best.empty() || d < best_distance)) {
      best = std::string(candidate);
      best_distance = d;
    }
  }
  return best;
}

} // namespace flow
