// Template arguments as libraries write them: an enum-valued default, a type default naming a
// type nothing binds (CUB's NullType), bool parameters and bool& outputs of function templates.
#pragma once
#include "values_detail.cuh"

namespace vd {
enum Speed { SLOW = 1, FAST = 3 };

template <class T, Speed S = FAST, class Extra = Nothing> struct Tagged {
  T v;
  __device__ explicit Tagged(T value) : v(value) {}
  __device__ T scaled() const { return v * static_cast<T>(S); }
  __device__ int has_extra() const { return is_nothing<Extra>::value ? 0 : 1; }
};

template <class T> __device__ T choose(bool first, T a, T b) { return first ? a : b; }

template <class T> __device__ void check_positive(T x, bool &positive) { positive = x > T(0); }

template <bool Negate, class T> __device__ T maybe_negate(T x) { return Negate ? -x : x; }
}  // namespace vd
