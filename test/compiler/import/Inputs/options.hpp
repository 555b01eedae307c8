// Options reach Clang: -std, --extra-arg (macros, char signedness).
#pragma once

struct Chars {
  char c;
  signed char sc;
  unsigned char uc;
};

#if __cplusplus > 201703L
struct OnlyInCxx20 {
  int x;
};
#endif

#ifdef WITH_EXTRA
struct Extra {
  long long e;
};
#endif
