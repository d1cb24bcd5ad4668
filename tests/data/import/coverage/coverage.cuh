// One declaration per outcome a coverage report distinguishes.
#pragma once

struct Vec2 {
  float x;
  float y;
};

__device__ inline float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }  // bound
__device__ inline Vec2 &operator++(Vec2 &v) { v.x += 1.0f; return v; }  // excluded: Python has no ++
__device__ inline int apply(int (*f)(int), int x) { return f(x); }  // skipped: function pointer
#if !defined(__CUDACC_RTC__)  // NVRTC refuses host functions; clang sees it
int host_only(int x);  // host-only
#endif
__device__ inline int helper_excluded(int x) { return x; }  // excluded by the mapping

// Templates count as bound only when a representative instance compiles.
template <class T> __device__ T twice(T x) { return x + x; }  // int compiles
template <class T> __device__ T halve(T x) {  // only floating point: float is the first to compile
  static_assert(T(1) / T(2) != T(0), "halve needs a floating-point type");
  return x / T(2);
}
template <class T> __device__ T never(T x) {  // no instance compiles
  static_assert(sizeof(T) == 0, "never instantiable");
  return x;
}
template <class T, int N> struct Buf {  // Buf<int, 1>
  T data[N];
  __device__ explicit Buf(T v) {
    for (int i = 0; i < N; ++i) data[i] = v;
  }
};
template <class T> struct Broken {  // no instance compiles
  static_assert(sizeof(T) == 0, "Broken is never instantiable");
  T value;
};
