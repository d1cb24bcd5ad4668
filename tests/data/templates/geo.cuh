// Templates in a namespace, in every role the bindings support: function templates (deduction,
// explicit arguments, defaults, an overload with a non-template), a class template (fields,
// methods, operators, a non-const method, member function templates), its explicit and partial
// specializations, a class template used as another's field, and an alias template.
#pragma once

namespace geo {

template <typename T, int N>
struct Arr {
  T v[N];

  __device__ Arr() {
    for (int i = 0; i < N; ++i) v[i] = T(0);
  }
  __device__ explicit Arr(T fill) {
    for (int i = 0; i < N; ++i) v[i] = fill;
  }
  __device__ T sum() const {
    T total = T(0);
    for (int i = 0; i < N; ++i) total += v[i];
    return total;
  }
  __device__ T at(int i) const { return v[i]; }
  __device__ Arr operator+(const Arr& other) const {
    Arr result;
    for (int i = 0; i < N; ++i) result.v[i] = v[i] + other.v[i];
    return result;
  }
  __device__ void scale(T by) {  // non-const: updates the object
    for (int i = 0; i < N; ++i) v[i] *= by;
  }
  template <typename U>
  __device__ U sum_as() const {  // U cannot be deduced: given by name, sum_as(U=...)
    U total = U(0);
    for (int i = 0; i < N; ++i) total += U(v[i]);
    return total;
  }
  template <typename U>
  __device__ U weighted(U weight) const {  // U deduced from the argument
    return U(sum()) * weight;
  }
};

// The header's own Arr<int, 1>.
template <>
struct Arr<int, 1> {
  int only;
  __device__ Arr() : only(0) {}
  __device__ explicit Arr(int x) : only(x) {}
  __device__ int sum() const { return -only; }
};

// Every Arr<T, 2> has named fields.
template <typename T>
struct Arr<T, 2> {
  T x;
  T y;
  __device__ Arr() : x(0), y(0) {}
  __device__ Arr(T a, T b) : x(a), y(b) {}
  __device__ T sum() const { return x + y + T(100); }
};

// A class template whose field is an instance of another.
template <typename T>
struct Pair {
  Arr<T, 3> first;
  T second;
  __device__ Pair() : second(0) {}
  __device__ Pair(T a, T b) : first(a), second(b) {}
  __device__ T total() const { return first.sum() + second; }
};

template <typename T>
using Arr3 = Arr<T, 3>;

template <typename T>
__device__ T clamp(T x, T lo, T hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// Its parameter is an instance of the namespaced class template.
template <typename T, int N>
__device__ T arr_sum(const Arr<T, N>& a) {
  return a.sum();
}

template <int K, typename T>
__device__ T times(T x) {
  return x * T(K);
}

template <typename T, typename Acc = double>
__device__ Acc widen(T x) {
  return Acc(x) * Acc(2);
}

// A plain overload and a template of one name: the plain one wins for int, as in C++.
__device__ inline int pick(int x) { return x + 1000; }

template <typename T>
__device__ T pick(T x) {
  return x + T(1);
}

}  // namespace geo
