#pragma once
// Message pieces the program layer shares: a runtime message made into one line of
// "NAME: error: ...", and an errno as text. Internal to the runtime's program layer.
#include <string>
#include <string_view>

namespace flow::detail {

/// `what` without the runtime's "flow: " prefix (the program's name goes first instead),
/// on one line, without trailing spaces.
std::string clean_message(std::string_view what);

/// "No such file or directory (errno 2)".
std::string errno_text(int error_number);

} // namespace flow::detail
