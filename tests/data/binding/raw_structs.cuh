// A value type and its raw-bits struct, as cuda_fp16.h's __half and __half_raw: the raw struct
// declares no constructor (aggregate initialization makes it), the value type converts from it
// by a constructor and to it by a conversion operator.
#pragma once

typedef struct {
  unsigned short x;
} bits16_raw;

struct bits16 {
 private:
  unsigned short v;

 public:
  __device__ bits16() : v(0) {}
  __device__ bits16(const bits16_raw &r) : v(r.x) {}
  __device__ operator bits16_raw() const {
    bits16_raw r;
    r.x = static_cast<unsigned short>(v + 1);  // +1: the conversion really ran
    return r;
  }
  __device__ unsigned short value() const { return v; }
};
