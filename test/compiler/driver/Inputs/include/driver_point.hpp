// A header that scripts find only with -I (test/compiler/driver/include_dirs.test).
#pragma once
#include <cstdint>

struct DriverPoint {
  int32_t x;
  int32_t y;
};
