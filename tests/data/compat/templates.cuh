// NVIDIA Numbast's template API on our bindings: intents on function templates, class template
// methods and member templates; an enum template argument given as C++ text; an array reference
// taken by pointer; constructors C++ cannot choose between.
#pragma once

template <typename T> __device__ void tripled(T x, T &out) { out = 3 * x; }

template <typename T> __device__ T sum_and_square(T x, T &square) {
  square = x * x;
  return x + x;
}

template <typename T> __device__ void fill3(T (&items)[3], T value) {
  for (int i = 0; i < 3; ++i) items[i] = value + i;
}

enum class Mode { Add = 1, Mul = 2 };

template <typename T, Mode M, int K = 2> struct Op {
  __device__ Op() {}
  __device__ void apply(T a, T b, T &out) const {
    out = M == Mode::Add ? a + b : a * b;
  }
  template <int J = K> __device__ void scaled(T a, T &out) const { out = a * J; }
};

template <typename T, int N> struct Ambig {
  T value;
  __device__ Ambig(T x) : value(x) {}
  __device__ Ambig(const T &x) : value(x + 1) {}
};

template <int N, typename T> struct Holder {
  T t;
  __device__ Holder(T t) : t(t) {}
  __device__ T get() const { return t + N; }
};
