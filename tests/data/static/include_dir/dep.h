// Found through Clang Include Paths only.
#pragma once

__device__ inline int dep_square(int x) { return x * x; }
