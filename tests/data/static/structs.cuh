// A number-like struct for Types / Data Models: a converting constructor, a conversion to
// float, one public field and a static method.
#pragma once

struct fixed16 {
  short raw;
  __device__ fixed16(float v) : raw(static_cast<short>(v * 256.0f)) {}
  __device__ operator float() const { return raw / 256.0f; }
  static __device__ fixed16 one() { return fixed16(1.0f); }  // a static method
};

__device__ inline fixed16 fixed16_twice(fixed16 v) { return fixed16(2.0f * float(v)); }
