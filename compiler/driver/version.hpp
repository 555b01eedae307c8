#pragma once
#include <string>

namespace flow::driver {
/// `flowc --version`: Flow's version and the ANTLR and Clang libraries it was built with.
std::string versionText();
} // namespace flow::driver
