// Partial specializations of a class template: their own parameters and the argument pattern.
#pragma once

namespace ps {

template <typename T, int N>
struct Grid {
    T cells[N];
};

template <typename T>
struct Grid<T, 1> {
    T only;
    __device__ T get() const { return only; }
};

template <typename T, int N>
struct Grid<T *, N> {
    T *cells[N];
};

}  // namespace ps
