// A typedef naming a class template instance (CUTLASS's `typedef complex<float> cfloat`-style
// aliases): the alias is a module attribute for the instance, which is bound because the
// typedef names it.
#pragma once

template <typename T>
struct Holder {
    T value;
    __device__ Holder(T v) : value(v) {}
    __device__ T doubled() const { return value + value; }
};

typedef Holder<int> IntHolder;

__device__ inline int unwrap(IntHolder h) { return h.value; }
