// Retained with geom.cuh (retain = ["include/geom_ops.cuh"]).
#pragma once

#ifdef GEOM_FAST
__device__ inline float geom_length(float x, float y) { return x * x + y * y; }
#endif
