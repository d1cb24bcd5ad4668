// Const and non-const member functions of one name, as libraries write getters and setters
// (cuda::std::complex's real() const beside real(float)) and const/non-const pairs with the
// same parameters (C++ calls the non-const one on a non-const object).
#pragma once

struct Cell {
  float v;
  __device__ Cell(float x) : v(x) {}
  // a getter beside a setter of the same name
  __device__ float value() const { return v; }
  __device__ void value(float x) { v = x; }
  // the same parameters, const and non-const: the const one is declared first
  __device__ float pick(int k) const { return v + 100.0f * k; }
  __device__ float pick(int k) {
    v += 1.0f;
    return v + 200.0f * k;
  }
};

template <class T>
struct Slot {
  T v;
  __device__ Slot(T x) : v(x) {}
  __device__ T value() const { return v; }
  __device__ void value(T x) { v = x; }
};

// an instance the header names, so that planning binds Slot<float> like a struct
__device__ inline float slot_value(const Slot<float> &s) { return s.value(); }
