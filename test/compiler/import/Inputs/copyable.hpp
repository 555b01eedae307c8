// Trivially copyable records and the reasons others are not.
#pragma once
#include <cstdint>
#include <string>

struct Labeled {
  uint32_t id;
  std::string label;
};

struct Owner {
  int32_t* data;
  ~Owner();
};

struct Copier {
  int32_t x;
  Copier() = default;
  Copier(const Copier& other);
};

struct Assigner {
  int32_t x;
  Assigner& operator=(const Assigner& other);
};

struct Defaulted {
  int32_t x;
  ~Defaulted() = default;
  Defaulted(const Defaulted&) = default;
  Defaulted() = default;
};

struct Virtual {
  virtual int32_t get() const;
  int32_t x;
};

struct FromLabeled : Labeled {
  int32_t y;
};

struct Holder {
  Owner owners[2];
};
