// Functions with defaulted trailing parameters: calls may leave them out, as in C++.
#pragma once

namespace da {
__device__ float blend(float a, float b, float weight = 0.25f, float bias = 1.0f) {
  return a + weight * (b - a) + bias;
}
__device__ int clamp_to(int x, int high = 10) { return x > high ? high : x; }
}  // namespace da
