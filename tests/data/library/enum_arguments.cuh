// Enumerators as template arguments (CUB's BlockReduce<T, N, BLOCK_REDUCE_RAKING>): a class
// template selecting its body by an enum parameter, an explicit and a partial specialization
// on an enumerator, a scoped enum parameter of a function and of a class template, and an
// explicit instantiation with an enumerator.
#pragma once

namespace alg {
enum Method { METHOD_SUM, METHOD_MAX, METHOD_COUNT };
enum class Scale : int { one = 1, ten = 10 };

template <class T, int N, Method M = METHOD_SUM>
struct Folder {
  __device__ T fold(const T* v) const {
    T acc = v[0];
    for (int i = 1; i < N; ++i) {
      acc = M == METHOD_MAX ? (v[i] > acc ? v[i] : acc) : acc + v[i];
    }
    return acc;
  }
};

// Counting: partial specialization on the enumerator
template <class T, int N>
struct Folder<T, N, METHOD_COUNT> {
  __device__ T fold(const T*) const { return T(N); }
  __device__ int items() const { return N; }  // only counting folders have it
};

// ... and an explicit one, which wins for <int, 4, METHOD_COUNT>
template <>
struct Folder<int, 4, METHOD_COUNT> {
  __device__ int fold(const int*) const { return 400; }
};

template <Scale S>
__device__ float scaled(float x) {
  return x * static_cast<int>(S);
}

template <class T, Scale S = Scale::ten>
struct Scaler {
  __device__ T apply(T x) const { return x * static_cast<int>(S); }
};

// Scaling by one: a partial specialization on a scoped enumerator, with a member of its own
template <class T>
struct Scaler<T, Scale::one> {
  __device__ T apply(T x) const { return x; }
  __device__ int factor() const { return 1; }
};

template struct Folder<float, 2, METHOD_MAX>;
}  // namespace alg
