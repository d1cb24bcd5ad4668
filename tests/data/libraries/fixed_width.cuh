// Fixed-width integer parameters as Random123 writes them: clang sees uint64_t as `unsigned
// long` (the host's <stdint.h>) while NVRTC's is `unsigned long long`; pointers and references
// to it only bind when the shim spells the typedef name the header wrote.
#pragma once
#include <stdint.h>

__device__ inline void add_wide(uint64_t *acc, uint64_t x) { *acc += x; }
__device__ inline void mul_hi_lo(uint64_t a, uint64_t b, uint64_t &hi, uint64_t &lo) {
    lo = a * b;
    hi = __umul64hi(a, b);
}
__device__ inline int64_t negate_wide(const int64_t &x) { return -x; }
