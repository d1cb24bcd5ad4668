// Includes a header that is found only through Clang Include Paths (include_dir/).
#pragma once
#include <dep.h>

__device__ inline int uses_dep(int x) { return dep_square(x) + 1; }
