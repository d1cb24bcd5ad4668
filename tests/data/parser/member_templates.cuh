// Member function templates, in a struct and in a class template, inside a namespace.
#pragma once

namespace mt {

struct Scale {
    float s;
    template <typename T>
    __device__ T apply(T x) const { return T(x * s); }
  private:
    template <typename T>
    __device__ T hidden(T x) const { return x; }
};

template <typename T>
struct Box {
    T value;
    template <typename U>
    __device__ U as() const { return U(value); }
    template <typename U, int K = 2>
    __device__ T mixed(U u) const { return value * T(K) + T(u); }
};

}  // namespace mt
