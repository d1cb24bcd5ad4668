// Constructors C++ supplies: a class template whose constructor is defaulted on its first
// declaration (no execution space written: CUDA infers __host__ __device__), one that declares
// no constructor, a plain struct with a defaulted constructor (their default member
// initializers give the values), and class templates whose only constructor is private (one
// made by a static member).
#pragma once

namespace dc {
template <class T> struct Counter {
  T count = T(2);
  Counter() = default;
  __device__ void add(T v) { count += v; }
  __device__ T get() const { return count; }
};

template <class T> struct Offset {
  T base = T(10);
  __device__ T at(T i) const { return base + i; }
};

struct Plain {
  float scale = 1.5f;
  Plain() = default;
  __device__ float apply(float x) const { return x * scale; }
};

template <class T> struct Made {
  __device__ static Made make(T v) {
    Made made;
    made.value = v;
    return made;
  }
  __device__ T get() const { return value; }

 private:
  __device__ Made() {}
  T value;
};
template <class T> struct Sealed {  // nothing makes it in device code
  __device__ T get() const { return T(0); }

 private:
  __device__ Sealed() {}
};
}  // namespace dc
