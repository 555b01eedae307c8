#pragma once
#include <cstdint>

namespace net {
struct Header {
  uint16_t kind;
  uint32_t length;
};
uint32_t checksum(const Header& h);
} // namespace net
