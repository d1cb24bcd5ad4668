// Type mapping: fixed-width and C integer types, half/bfloat16, vector types, pointers, arrays.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/std/cstdint>

using cuda::std::int8_t;
using cuda::std::uint8_t;
using cuda::std::int16_t;
using cuda::std::uint32_t;
using cuda::std::int32_t;
using cuda::std::int64_t;

typedef int32_t my_int;

__device__ inline int8_t t_i8(int8_t x) { return x + 1; }
__device__ inline uint8_t t_u8(uint8_t x) { return x + 1; }
__device__ inline int16_t t_i16(int16_t x) { return x + 1; }
__device__ inline uint32_t t_u32(uint32_t x) { return x + 1; }
__device__ inline int64_t t_i64(int64_t x) { return x + 1; }
__device__ inline unsigned long long t_ull(unsigned long long x) { return x + 1; }
__device__ inline my_int t_typedef(my_int x) { return x * 3; }
__device__ inline char t_char(char x) { return x + 1; }
__device__ inline __half t_half(__half x) { return __hadd(x, __float2half(1.0f)); }
__device__ inline __nv_bfloat16 t_bf16(__nv_bfloat16 x) { return __hadd(x, __float2bfloat16(1.0f)); }
__device__ inline float2 t_float2(float2 v) { return make_float2(v.y, v.x); }
__device__ inline int4 t_int4(int a) { return make_int4(a, a + 1, a + 2, a + 3); }
__device__ inline float t_sum_ptr(const float* p, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  return s;
}

struct WithArray {
  float values[3];
  int tag;
};
__device__ inline WithArray t_make_array(float a) { WithArray w; w.values[0] = a; w.values[1] = 2 * a; w.values[2] = 3 * a; w.tag = 9; return w; }
__device__ inline float t_array_sum(WithArray w) { return w.values[0] + w.values[1] + w.values[2] + w.tag; }
