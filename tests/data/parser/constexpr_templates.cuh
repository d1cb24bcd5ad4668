// A constexpr function template over class templates, for instantiate() and
// evaluate_constexpr_value(): clang folds total<Size<2>, Size<3>>(...) to 5.
#pragma once

namespace cx {

template <int N>
struct Size {
    static constexpr int value = N;
};

template <typename A, typename B>
constexpr __device__ int total(A, B) {
    return A::value + B::value;
}

template <typename T, int N = 4, bool Flag = false>
struct Tagged {
    T data[N];
};

}  // namespace cx
