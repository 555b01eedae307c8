// The runtime library links and reports a version.
#include "flow/version.hpp"

#include <gtest/gtest.h>
#include <string>

TEST(Runtime, ReportsVersion) { EXPECT_FALSE(std::string(flow::runtime_version()).empty()); }
