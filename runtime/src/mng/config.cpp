// Parsing of sizes and --disk specifications.
#include "flow/format.hpp"
#include "flow/excerpt.hpp"
#include "flow/mng/config.hpp"

#include "flow/io/stats.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace flow::mng {
namespace {
std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool is_size(std::string_view text) {
  try {
    parse_size(text);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}
} // namespace

std::uint64_t parse_size(std::string_view text) {
  const auto bad = [&] {
    return std::invalid_argument(
        "flow: '" + excerpt(text) + // user input: short and escaped
        "' is not a size; write a whole number with an optional unit B, KiB, MiB, GiB or "
        "TiB (K/KB, M/MB, G/GB, T/TB mean the same binary units), e.g. 256MiB");
  };
  std::size_t i = 0;
  std::uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) throw bad();
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) throw bad();
  std::string unit = lower(text.substr(i));
  if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  unsigned shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gb" || unit == "gib") shift = 30;
  else if (unit == "t" || unit == "tb" || unit == "tib") shift = 40;
  else throw bad();
  if (shift && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad();
  return value << shift;
}


disk_spec disk_spec::parse(std::string_view text) {
  if (text.empty()) {
    throw std::invalid_argument("flow: empty --disk value; write --disk PATH[:SIZE], e.g. "
                                "--disk /var/tmp/flow.disk:10GiB");
  }
  disk_spec spec;
  std::string_view rest = text;
  constexpr std::string_view memory = ":memory:";
  if (rest.substr(0, memory.size()) == memory) { // the path itself ends in ':'
    spec.path = std::string(memory);
    rest = rest.substr(memory.size() - 1); // keep the ':' that starts the size
    if (rest == ":") return spec;
  }
  // Peel ":keep" and ":SIZE" off the end; anything else after a ':' is part of the path.
  for (int round = 0; round < 2; ++round) {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos || (colon == 0 && spec.path.empty())) break;
    const std::string_view last = rest.substr(colon + 1);
    if (!spec.keep && lower(last) == "keep") {
      spec.keep = true;
    } else if (spec.capacity == 0 && is_size(last)) {
      spec.capacity = parse_size(last);
      if (spec.capacity == 0) {
        throw std::invalid_argument("flow: --disk " + std::string(text) +
                                    ": a disk of size 0 cannot hold anything; give a size "
                                    "such as 10GiB, or leave it out for no limit");
      }
    } else {
      break;
    }
    rest = rest.substr(0, colon);
  }
  if (spec.path.empty()) spec.path = std::string(rest);
  else if (!rest.empty()) // ":memory:" followed by something that is not a size
    throw std::invalid_argument("flow: --disk " + std::string(text) +
                                ": after :memory: only :SIZE may follow");
  return spec;
}

std::string disk_config::default_directory() {
  const char* tmp = std::getenv("TMPDIR");
  return (tmp && *tmp) ? std::string(tmp) : std::string("/var/tmp");
}

disk_config disk_config::defaults() {
  disk_config c;
  c.disks.push_back(disk_spec{default_directory(), 0, false, true});
  return c;
}

} // namespace flow::mng
