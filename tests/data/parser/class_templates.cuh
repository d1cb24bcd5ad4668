// Class templates, an explicit specialization, and a partial specialization (skipped).
#pragma once

template <typename T, int N = 3>
struct Vec {
    T data[N];
    __device__ T get(int i) const { return data[i]; }
};

template <>
struct Vec<float, 2> {
    float x;
    float y;
    __device__ float get(int i) const { return i ? y : x; }
};

template <typename T>
struct Vec<T, 1> {
    T only;
};

template <class T>
class Holder {
    T held;

  public:
    __device__ Holder(T v) : held(v) {}
    __device__ T value() const { return held; }
};
