#pragma once
#include <cstdint>

struct Sibling {
  int64_t s;
};
