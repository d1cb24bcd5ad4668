// Function objects as libraries write them: a class template with operator(), a transparent
// specialization whose operator() is a template, members taking any function object, and
// member operator templates.
#pragma once

namespace fn {
struct Scale {  // not a template: its operator() binds the same way
  float factor;
  __device__ float operator()(float x) const { return x * factor; }
};

template <class T> struct Larger {
  __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

template <class T = void> struct Sum {
  __device__ T operator()(const T &a, const T &b) const { return a + b; }
};

template <> struct Sum<void> {
  template <class A, class B> __device__ auto operator()(A &&a, B &&b) const -> decltype(a + b) {
    return a + b;
  }
};

template <class T, int N> struct Folder {
  template <class Op> __device__ T Fold(const T *items, Op op) const {
    T acc = items[0];
    for (int i = 1; i < N; ++i) acc = op(acc, items[i]);
    return acc;
  }
};

template <class T> struct Pair {
  T a, b;
  __device__ Pair(T first, T second) : a(first), b(second) {}
  template <class U> __device__ Pair &operator+=(const Pair<U> &other) {
    a += static_cast<T>(other.a);
    b += static_cast<T>(other.b);
    return *this;
  }
  template <class U> __device__ Pair operator*(const Pair<U> &other) const {
    return Pair(a * static_cast<T>(other.a), b * static_cast<T>(other.b));
  }
};
}  // namespace fn
