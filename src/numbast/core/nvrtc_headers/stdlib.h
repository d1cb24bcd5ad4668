// numbast stand-in for <stdlib.h> under NVRTC: what device code has of it. malloc, free, abs,
// labs and llabs are CUDA's own (built into NVRTC); div, ldiv and lldiv are written here.
// Nothing that needs an operating system (getenv, exit, rand, qsort) exists on the GPU.
#ifndef __NUMBAST_STANDIN_STDLIB_H
#define __NUMBAST_STANDIN_STDLIB_H

#include <stddef.h>

#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif

typedef struct {
  int quot;
  int rem;
} div_t;
typedef struct {
  long quot;
  long rem;
} ldiv_t;
typedef struct {
  long long quot;
  long long rem;
} lldiv_t;

__host__ __device__ inline div_t div(int x, int y) {
  div_t result;
  result.quot = x / y;
  result.rem = x % y;
  return result;
}
__host__ __device__ inline ldiv_t ldiv(long x, long y) {
  ldiv_t result;
  result.quot = x / y;
  result.rem = x % y;
  return result;
}
__host__ __device__ inline lldiv_t lldiv(long long x, long long y) {
  lldiv_t result;
  result.quot = x / y;
  result.rem = x % y;
  return result;
}
__host__ __device__ inline ldiv_t div(long x, long y) { return ldiv(x, y); }
__host__ __device__ inline lldiv_t div(long long x, long long y) { return lldiv(x, y); }

#endif
