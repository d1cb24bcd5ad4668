// One declaration per outcome a coverage report distinguishes.
#pragma once

struct Vec2 {
  float x;
  float y;
};

__device__ inline float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }  // bound
__device__ inline Vec2 &operator++(Vec2 &v) { v.x += 1.0f; return v; }  // skipped: no Python ++
__device__ inline int apply(int (*f)(int), int x) { return f(x); }  // skipped: function pointer
#if !defined(__CUDACC_RTC__)  // NVRTC refuses host functions; clang sees it
int host_only(int x);  // host-only
#endif
__device__ inline int helper_excluded(int x) { return x; }  // excluded by the mapping
