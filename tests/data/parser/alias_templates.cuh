// Alias templates: `template <class T> using V3 = Vec<T, 3>;`, namespaced and not.
#pragma once

namespace al {

template <typename T, int N>
struct Vec {
    T v[N];
};

template <typename T>
using V3 = Vec<T, 3>;

template <int N>
using Floats = Vec<float, N>;

}  // namespace al

template <typename T>
using Ptr = const T *;
