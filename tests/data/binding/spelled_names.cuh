// Structs whose only name is C++ spelling: reached as M.box[types.float32] (a specialization
// of a template another file declares), M.tagged[types.int32, 2] (an instance a function
// names), M.Outer.Inner (a record nested in a struct); never as getattr(M, "ns::box<float>").
#pragma once
#include "spelled_primary.h"

namespace ns {
template <> struct box<float> {
  float value;
  __device__ explicit box(float v) : value(v) {}
  __device__ float twice() const { return 2.0f * value; }
};
}  // namespace ns

__device__ inline int sum_of(ns::tagged<int, 2> t) { return t.values[0] + t.values[1]; }

struct Outer {
  struct Inner {
    int a;
  };
  Inner inner;
  int b;
};

__device__ inline int inner_a(Outer o) { return o.inner.a + o.b; }
