// Patterns CUTLASS's numeric types use, one each (tests/test_cutlass_patterns.py).
#pragma once
#include <stdint.h>

#include "cutlass_patterns_real.cuh"

namespace cp {

// v[i] = x: a non-const operator[] returning a reference, through a typedef as CUTLASS's
// Array<T, N> writes it, beside the const one that reads.
template <class T, int N>
struct Vec {
  typedef T &reference;
  typedef T const &const_reference;
  T items[N];
  __device__ reference operator[](int i) { return items[i]; }
  __device__ const_reference operator[](int i) const { return items[i]; }
  __device__ T sum() const {
    T total = T(0);
    for (int i = 0; i < N; ++i) total += items[i];
    return total;
  }
};

// The same on a plain struct, the reference spelled out.
struct Quad {
  float v[4];
  __device__ Quad() : v{0.0f, 0.0f, 0.0f, 0.0f} {}
  __device__ float &operator[](int i) { return v[i]; }
  __device__ float total() const { return v[0] + v[1] + v[2] + v[3]; }
};

// A specialization written with a fixed-width typedef: clang reads int64_t as long here,
// NVRTC (libcu++'s <cstdint>) as long long; Numba's int64 is either.
template <class T>
struct Width {
  __device__ int bits() const { return -1; }
};
template <>
struct Width<int64_t> {
  __device__ int bits() const { return 64; }
};
template <>
struct Width<uint64_t> {
  __device__ int bits() const { return 65; }
};
template <>
struct Width<int32_t> {
  __device__ int bits() const { return 32; }
};

// The reverse: a specialization written with long, which Numba's int64 is too.
template <class T>
struct Tag {
  __device__ int code() const { return -1; }
};
template <>
struct Tag<long> {
  __device__ int code() const { return 8; }
};
template <>
struct Tag<unsigned long long> {
  __device__ int code() const { return 9; }
};

// A function template whose type parameter sits inside its parameter's type and whose body
// compiles for the module's own class alone (CUTLASS's abs(complex<T>): half_t only).
struct Half {
  float v;
  __device__ explicit Half(float x) : v(x) {}
};
__device__ inline Half operator*(Half a, Half b) { return Half(a.v * b.v); }
__device__ inline Half operator+(Half a, Half b) { return Half(a.v + b.v); }
__device__ inline Half root(Half h) { return Half(sqrtf(h.v)); }
template <class T>
struct Pair {
  T re, im;
  __device__ Pair(T r, T i) : re(r), im(i) {}
};
template <class T>
__device__ T magnitude(const Pair<T> &z) {
  return root(z.re * z.re + z.im * z.im);
}

// Explicit specializations of a template whose argument a call cannot deduce, declared in a
// header the mapping does not retain (CUTLASS's from_real): bound through the template.
template <>
__device__ inline Half from_value<Half>(double x) {
  return Half(static_cast<float>(x) * 2.0f);
}
template <>
__device__ inline Pair<float> from_value<Pair<float>>(double x) {
  return Pair<float>(static_cast<float>(x), -1.0f);
}

// Ill-formed in the library itself, whatever compiles it (CUTLASS's log(complex<T>) calls
// log(T) inside its namespace, where only the template is seen; coverage excludes it).
template <class T>
__device__ Pair<T> lg(const Pair<T> &z) {
  return Pair<T>(lg(z.re), z.im);
}

// A method whose body asserts what its class's instance is not (CUTLASS's complex<float>::red
// asserts T is half_t); the header makes Acc<double>.
template <class T>
struct Acc {
  T total;
  __device__ void add_word(int x) {
    static_assert(sizeof(T) == 4, "T must be 4 bytes");
    total += x;
  }
};
__device__ inline double acc_total(Acc<double> a) { return a.total; }

// A class template a kernel names with a Numba type (Box[int64]).
template <class T>
struct Box {
  T value;
  __device__ explicit Box(T v) : value(v) {}
  __device__ T get() const { return value; }
};

}  // namespace cp
