// The demo header of the Numbast documentation's dynamic-binding example, with the definitions
// the documentation leaves out (a header-only library needs them to link).
#pragma once
#include <cuda_fp16.h>

struct __attribute__((aligned(2))) __myfloat16
{
private:
  half data;

public:
  __host__ __device__ __myfloat16() : data(0.0) {}

  __host__ __device__ __myfloat16(double val) : data(__double2half(val)) {}

  __host__ __device__ operator double() const { return __half2float(data); }
};

__host__ __device__ inline __myfloat16 operator+(const __myfloat16 &lh, const __myfloat16 &rh)
{
  return __myfloat16(double(lh) + double(rh));
}

__device__ inline __myfloat16 hsqrt(const __myfloat16 a) { return __myfloat16(sqrt(double(a))); }
