// A header that includes a second file; both may be retained.
#pragma once
#include "includes_second.cuh"

__device__ Second make_second(int v);
