// program::help: the --help text of a Flow program (its params, then the option table's
// rows), wrapped to 90 columns.
#include <algorithm>

#include "flow/program.hpp"
#include "options.hpp"

namespace flow {

namespace {

// Word-wraps `text` to `width` columns, continuation lines indented by `indent`.
std::string wrap(const std::string& text, std::size_t first_col, std::size_t indent, std::size_t width) {
  std::string out;
  std::size_t col = first_col;
  std::size_t i = 0;
  bool first_word = true;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    const std::string word = text.substr(i, j - i);
    if (!first_word && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!first_word) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first_word = false;
    i = j + 1;
  }
  return out;
}

} // namespace

std::string program::help() const {
  std::string out = name_;
  if (!description_.empty()) out += " - " + description_;
  out += "\n\nusage: " + name_ + (params_.empty() ? "" : " [--PARAM=VALUE]...") + " [OPTION]...\n";

  struct entry {
    std::string left, right;
  };
  std::vector<entry> ps, os;
  for (const auto& p : params_) {
    std::string left = "--" + p.name + (p.is_bool ? "[=bool]" : p.type == "path" ? std::string("=FILE") : "=" + p.type);
    const std::string value = p.text();
    std::string def = p.default_text.empty() ? value : p.default_text;
    if (!p.default_text.empty() && p.default_text != value) def += " = " + value;
    std::string right = p.description;
    if (!right.empty()) right += " ";
    right += "(" + p.type + ", default " + def + ")";
    ps.push_back({left, right});
  }
  const detail::help_defaults defaults{memory_default_ ? memory_default_ : fallback_memory, memory_default_,
                                       block_default_};
  for (const detail::option_row& o : detail::builtin_options()) os.push_back({o.syntax, o.describe(defaults)});

  std::size_t col = 0;
  for (const auto* list : {&ps, &os})
    for (const auto& e : *list) col = std::max(col, e.left.size());
  col = std::min<std::size_t>(col, 26) + 4;
  const auto render = [&](const std::vector<entry>& list) {
    std::string s;
    for (const auto& e : list) {
      std::string line = "  " + e.left;
      if (line.size() + 2 > col) line += "\n" + std::string(col, ' ');
      else line += std::string(col - line.size(), ' ');
      s += line + wrap(e.right, col, col, 90) + "\n";
    }
    return s;
  };
  if (!ps.empty()) out += "\nparams:\n" + render(ps);
  out += "\noptions:\n" + render(os);
  out += "\nExit status: 0 done, 1 error while running, 2 bad flag or value.\n";
  return out;
}

} // namespace flow
