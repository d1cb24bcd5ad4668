// A device function for examples/dask_kernels.py (mapped there with numbast_import.register).
#pragma once

// 0 below edge0, 1 above edge1, a smooth cubic between (GLSL's smoothstep).
__device__ inline float smoothstep(float edge0, float edge1, float x) {
  float t = (x - edge0) / (edge1 - edge0);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return t * t * (3.0f - 2.0f * t);
}
