// Argument intents for reference and pointer parameters.
#pragma once

__device__ inline void split_sum(float a, float b, float& sum, float& diff) {
  sum = a + b;
  diff = a - b;
}
__device__ inline int divmod_ref(int a, int b, int& rem) { rem = a % b; return a / b; }
__device__ inline void accumulate(float& acc, float v) { acc += v; }
__device__ inline void write_twice(float* out, float v) { out[0] = v; out[1] = 2 * v; }
