#pragma once
// A run-time error of a script, with the script position it happened at.
#include <stdexcept>
#include <string>

namespace flow::script {

/// A run-time error of the script, with the script position it happened at.
struct script_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const char* where, const std::string& what) {
  throw script_error(std::string(where) + ": " + what);
}

} // namespace flow::script
