// Members inherited from bases, as C++ finds them: a struct's, a class template instance's
// (Named derives from Tagged<7>, which derives from Counter), a member hidden by one of the
// same name declared closer, non-const members updating the derived object, and two bases at
// different offsets (the second needs its address adjusted).
#pragma once

namespace inh {

struct Counter {
  int count;
  __device__ Counter() : count(0) {}
  __device__ int get() const { return count; }
  __device__ void bump(int by) { count += by; }
  __device__ int twice() const { return 2 * count; }
  __device__ static int limit() { return 100; }
};

template <int Tag>
struct Tagged : Counter {
  __device__ static int tag() { return Tag; }
};

struct Named : Tagged<7> {
  __device__ Named() {}
  __device__ int twice() const { return 3 * count; }  // hides Counter::twice
};

struct Left {
  int l;
  __device__ int left() const { return l; }
  __device__ int side() const { return 1; }
};

struct Right {
  int r;
  __device__ int right() const { return r; }
  __device__ int side() const { return 2; }  // and Left::side: ambiguous, left out
};

struct Both : Left, Right {
  __device__ Both(int a, int b) {
    l = a;
    r = b;
  }
};

}  // namespace inh
