// Class template instances that inherit, as libraries write them: numeric_limits<T> has no
// member of its own (its static members are those of an explicit specialization it derives
// from); a tile reaches members and member templates through two levels of template bases,
// and hides one of them; a class template instance that a function names takes its
// template's member templates.
#pragma once

namespace tb {

enum class flavor { plain, fancy };

template <class T, flavor F>
struct traits;

template <>
struct traits<float, flavor::plain> {
  __device__ static float biggest() { return 3.0e38f; }
  __device__ static int digits() { return 24; }
};

template <class T>
struct limits : traits<T, flavor::plain> {};

template <class T>
struct holder {
  T v;
  __device__ T get() const { return v; }
  __device__ void add(T x) { v += x; }
  template <class U>
  __device__ T scaled(U s) const { return v * static_cast<T>(s); }
};

template <class T, int N>
struct middle : holder<T> {
  __device__ static int size() { return N; }
};

template <class T>
struct tile : middle<T, 32> {
  __device__ tile(T x) { this->v = x; }
  __device__ T get() const { return this->v + T(1); }  // hides holder<T>::get
};

template <class T>
struct box {
  T v;
  template <class U>
  __device__ T times(U u) const { return v * static_cast<T>(u); }
};

__device__ inline box<float> make_box(float v) {
  box<float> b;
  b.v = v;
  return b;
}

}  // namespace tb
