// Includes standard headers: only this header's own declarations are described.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

struct Mine {
  std::array<uint32_t, 2> pair;
};
int32_t mine(int32_t v);
