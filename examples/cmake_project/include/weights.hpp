// The project's own C++, imported by top_words.flow.
#pragma once
#include <cstdint>

inline uint64_t weight(uint64_t word) { return word * 7 % 1000 + 1; }
