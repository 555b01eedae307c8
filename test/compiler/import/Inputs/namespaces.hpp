// Qualified names: nested namespaces, inline and anonymous namespaces (not written),
// nested records, records and functions from a header found through -I, and from a
// header included next to this one.
#pragma once
#include "net/packet.hpp"
#include "sibling.hpp"

namespace a::b::c {
struct Deep {
  net::Header header;
  Sibling sibling;
};
uint32_t deep_id(const Deep& d);
} // namespace a::b::c

namespace a {
inline namespace v2 {
struct Versioned {
  uint16_t version;
};
} // namespace v2
namespace {
struct Hidden {
  uint8_t h;
};
} // namespace
struct Shell {
  struct Core {
    struct Kernel {
      uint32_t k;
    };
    Kernel kernel;
  };
  Core core;
private:
  struct Secret {
    uint8_t s;
  };
};
} // namespace a

template <class T> struct Box {
  T value;
};
struct UsesBox {
  Box<int32_t> box;
};
template <> struct Box<char> {
  char c;
};
union Either {
  int32_t i;
  float f;
};
struct Forward;
struct HasUnion {
  Either e;
};
