// Records with mixed field types, padding, arrays, nested records and base classes.
#pragma once
#include <array>
#include <cstdint>

struct Mixed {
  char c;
  int32_t i;
  uint8_t u;
  double d;
  bool b;
  int16_t s;
};

struct Scalars {
  signed char sc;
  unsigned char uc;
  short sh;
  unsigned short us;
  int in;
  unsigned int ui;
  long lo;
  unsigned long ul;
  long long ll;
  unsigned long long ull;
  float f;
  double d;
  bool b;
  char c;
};

struct Arrays {
  uint8_t key[10];
  uint64_t value;
  int32_t grid[2][3];
};

struct Outer {
  struct Inner {
    uint16_t a;
    uint64_t b;
  };
  Inner first;
  uint8_t tag;
  Inner rest[2];
};

struct Base {
  uint32_t id;
  uint8_t flag;
};

struct Derived : Base {
  uint16_t extra;
  double weight;
};

typedef struct {
  float x, y;
} CStyle;

class WithPrivate {
public:
  int32_t visible;
private:
  int64_t hidden;
};

struct Odd {
  unsigned bits : 3;
  long double ld;
  int* ptr;
  union { int i; float f; };
  struct { uint8_t p, q; };
};

struct StdArrays {
  std::array<uint8_t, 10> key;
  std::array<std::array<int16_t, 2>, 3> pairs;
  std::array<Base, 2> bases;
};
