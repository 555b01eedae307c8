// Message pieces the program layer shares (messages.hpp).
#include "messages.hpp"

#include <cstring>

namespace flow::detail {

std::string clean_message(std::string_view what) {
  std::string s(what);
  if (s.rfind("flow: ", 0) == 0) s.erase(0, 6);
  for (auto& c : s)
    if (c == '\n') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string errno_text(int error_number) {
  return std::string(std::strerror(error_number)) + " (errno " + std::to_string(error_number) + ")";
}

} // namespace flow::detail
