// Templates: function templates (deduction through T, const T&, T*; a defaulted type parameter;
// non-type parameters) and a class template Vec<T, N> with one explicit specialization.
#pragma once

template <typename T>
__device__ T tmax(T a, T b) { return a > b ? a : b; }

// Deduction through const T&.
template <typename T>
__device__ T add_ref(const T& a, const T& b) { return a + b; }

// Deduction through T*: writes through the pointer.
template <typename T>
__device__ void store_twice(T* out, T value) { *out = value + value; }

// A defaulted type parameter that cannot be deduced: the accumulator type.
template <typename T, typename Acc = double>
__device__ Acc sum3(T a, T b, T c) { return Acc(a) + Acc(b) + Acc(c); }

// A non-type parameter that cannot be deduced: given explicitly, scale_by[3](x).
template <int N, typename T>
__device__ T scale_by(T x) { return x * T(N); }

// A defaulted non-type parameter.
template <typename T, int N = 2>
__device__ T times_n(T x) { return x * T(N); }

// A return type only clang can work out.
template <typename A, typename B>
__device__ auto mixed_add(A a, B b) -> decltype(a + b) { return a + b; }

// A non-type default that is an expression over another parameter.
template <typename T, int Bytes = sizeof(T)>
__device__ int byte_size(T) { return Bytes; }

namespace tmpl {
template <typename T>
__device__ T square(T x) { return x * x; }
}  // namespace tmpl

template <typename T, int N>
struct Vec {
  T data[N];

  __device__ Vec() {
    for (int i = 0; i < N; ++i) data[i] = T(0);
  }
  __device__ explicit Vec(T fill) {
    for (int i = 0; i < N; ++i) data[i] = fill;
  }
  __device__ T sum() const {
    T total = T(0);
    for (int i = 0; i < N; ++i) total += data[i];
    return total;
  }
  __device__ T get(int i) const { return data[i]; }
  __device__ int size() const { return N; }
  __device__ Vec operator+(const Vec& other) const {
    Vec result;
    for (int i = 0; i < N; ++i) result.data[i] = data[i] + other.data[i];
    return result;
  }
  __device__ Vec<T, N> scaled(T by) const {
    Vec result;
    for (int i = 0; i < N; ++i) result.data[i] = data[i] * by;
    return result;
  }
};

// The header's own layout for two floats: named fields, an extra constructor, a marker method.
template <>
struct Vec<float, 2> {
  float x;
  float y;

  __device__ Vec() : x(0.0f), y(0.0f) {}
  __device__ explicit Vec(float fill) : x(fill), y(fill) {}
  __device__ Vec(float x_, float y_) : x(x_), y(y_) {}
  __device__ float sum() const { return x + y; }
  __device__ int size() const { return -2; }  // tells the tests the specialization was used
  __device__ Vec operator+(const Vec& other) const { return Vec(x + other.x, y + other.y); }
};

// Uses the class template in a function template: deduction through a template-id.
template <typename T, int N>
__device__ T vec_sum(const Vec<T, N>& v) { return v.sum(); }

// A plain function taking an instance nobody asked for: binding the header instantiates it.
__device__ inline double first_of(const Vec<double, 4>& v) { return v.data[0]; }

// A free operator template: Vec * scalar.
template <typename T, int N>
__device__ Vec<T, N> operator*(const Vec<T, N>& v, T by) { return v.scaled(by); }

// A defaulted type parameter in a class template, and a non-const method.
template <typename T, typename Acc = double>
struct Accumulator {
  Acc total;
  int count;

  __device__ Accumulator() : total(0), count(0) {}
  __device__ void add(T x) { total += Acc(x); ++count; }
  __device__ Acc mean() const { return count ? total / Acc(count) : Acc(0); }
};
