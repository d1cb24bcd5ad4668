// Free functions: overloads, namespaces, typedefs, void results, pointers, default arguments.
#pragma once

typedef float real_t;

__device__ inline float fn_fma(float a, float b, float c) { return a * b + c; }

__device__ inline int fn_add(int a, int b) { return a + b; }
__device__ inline double fn_add(double a, double b) { return a + b + 0.5; }

namespace fnspace {
__device__ inline real_t scale(real_t x, real_t by) { return x * by; }
namespace inner {
__host__ __device__ inline long long widen(int x) { return (long long)x * 1000000000LL; }
}  // namespace inner
}  // namespace fnspace

__device__ inline void fn_store(float* out, float value) { *out = value; }

__device__ inline unsigned short fn_halve(unsigned short x) { return x / 2; }

__device__ inline bool fn_is_positive(double x) { return x > 0; }

// Host-only code is invisible to NVRTC (as in real headers) but seen by the parser.
#ifndef __CUDACC_RTC__
__host__ inline int fn_host_only(int x) { return x; }
#endif

__device__ inline int fn_variadic(int n, ...) { return n; }
