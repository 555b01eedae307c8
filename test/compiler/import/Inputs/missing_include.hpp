#pragma once
#include "does_not_exist.hpp"
struct After { int x; };
