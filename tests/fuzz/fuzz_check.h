// A check that stays on in every build type: fuzz targets report a broken property by aborting.
#pragma once

#include <cstdio>
#include <cstdlib>

#define TBKIT_FUZZ_CHECK(cond)                                                                  \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #cond);     \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)
