// Clang's warnings inside a header are Flow warnings; the header is still imported.
#pragma once
#include <cstdint>

inline int8_t narrow() { return 300; }
struct S {
  int32_t x;
};
