// Free functions and operators for the static generator: overloads, a __-prefixed name (Python
// name mangling must not touch it), a struct with fields, constructors, a method and operators.
#pragma once

struct __pair {
  int first;
  int second;
  __device__ __pair() : first(0), second(0) {}
  __device__ __pair(int a, int b) : first(a), second(b) {}
  __device__ int sum() const { return first + second; }
};

__device__ inline __pair operator+(const __pair &a, const __pair &b) {
  return __pair(a.first + b.first, a.second + b.second);
}

__device__ inline int scale(int x, int factor) { return x * factor; }
__device__ inline float scale(float x, float factor) { return x * factor; }
__device__ inline int __twice(int x) { return 2 * x; }
