// One device function per C standard header, as CUDA code written for nvcc includes them:
// NVRTC finds numbast's stand-ins for them, clang the host's.
#pragma once
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Pair {
  int first;
  double second;
};

__device__ uint32_t rotate_left(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
__device__ size_t offset_of_second() { return offsetof(Pair, second); }
__device__ int below_int_max(int x) { return INT_MAX - x; }
__device__ float float_epsilon() { return FLT_EPSILON; }
__device__ double integer_hypot(int a, int b) { return sqrt(a * a + b * b); }
__device__ double circle_area(double r) { return M_PI * r * r; }
__device__ int printed(int x) {
  printf("printed(%d)\n", x);
  return x;
}
__device__ int checked(int x) {
  assert(x >= 0);
  return x;
}
__device__ int quotient(int a, int b) { return div(a, b).quot; }
__device__ int hello_length() { return (int)strlen("hello"); }
