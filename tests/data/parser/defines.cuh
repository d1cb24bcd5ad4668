// Macros from the command line (defines=...) change what the header declares.
#pragma once
#include <extra_types.cuh>

#ifdef WITH_EXTRA
__device__ int extra_function(int x);
#endif

__device__ ExtraType make_extra(int x = SCALE);
