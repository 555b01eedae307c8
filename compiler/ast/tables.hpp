#pragma once
// Look-up by name in the tables built from the .def files (builtins.def, operators.def).
#include <cstddef>
#include <optional>
#include <string_view>

namespace flow::ast {

/// The `id` of the row of `rows` whose `text` (its name or spelling) is `text`.
template <class Row, std::size_t N, class Id>
std::optional<Id> findRow(const Row (&rows)[N], std::string_view text, Id Row::*id, const char* Row::*textOf) {
  for (const Row& row : rows)
    if (text == row.*textOf) return row.*id;
  return std::nullopt;
}

} // namespace flow::ast
