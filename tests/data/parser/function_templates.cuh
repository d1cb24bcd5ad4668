// Function templates: type, non-type and template template parameters, defaults and packs.
#pragma once

template <typename T>
__device__ T square(T x) {
    return x * x;
}

template <typename T = float, int N = 4>
__device__ T sum_n(const T *values) {
    T total = 0;
    for (int i = 0; i < N; ++i) total += values[i];
    return total;
}

template <typename... Ts>
__device__ int count_args(Ts... args) {
    return sizeof...(Ts);
}

template <template <typename> class Box, typename T>
__device__ T unbox(const Box<T> &b);

struct Scaler {
    float s;
    template <typename T>
    __device__ T scale(T x) const {
        return x * s;
    }
};
