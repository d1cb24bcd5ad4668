// operator[] of a class template (a reference to an element, const and non-const) and an
// operator< function template: `v[i]` and `a < b` in a kernel.
#pragma once

template <typename T, int N>
struct Vec {
  T items[N];
  __device__ T &operator[](int i) { return items[i]; }
  __device__ const T &operator[](int i) const { return items[i]; }
  __device__ T total() const {
    T sum = T(0);
    for (int i = 0; i < N; ++i) sum += items[i];
    return sum;
  }
};

template <typename T>
__device__ bool operator<(Vec<T, 3> const &a, Vec<T, 3> const &b) {
  return a.total() < b.total();
}

__device__ Vec<float, 3> make_vec3(float a, float b, float c) {
  Vec<float, 3> v;
  v.items[0] = a;
  v.items[1] = b;
  v.items[2] = c;
  return v;
}
