// Errors inside a header are reported at the header's own line and column.
#pragma once
#include <cstdint>

struct Fine {
  uint32_t x;
};

struct Broken {
  uint32_t count;
  undeclared_t value;
};

int32_t twice(int32_t v) { return v * 2 }
