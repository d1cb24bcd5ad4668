// CUDA execution spaces: host (implicit and explicit), device, host device, global, and the
// implicit host device of constexpr functions.
#pragma once

int host_implicit(int x);
__host__ int host_explicit(int x);
__device__ int device_only(int x);
__host__ __device__ int both(int x);
__device__ __host__ int both_reversed(int x);
__global__ void kernel(int *out);
constexpr int folded(int x) { return x + 1; }
__device__ __forceinline__ int forced(int x) { return x; }
