// Parameter packs: in function templates, class templates and template template parameters,
// and an instance of a variadic class template.
#pragma once

template <typename... Ts>
struct Tuple {};

template <typename T, int... Ns>
struct Dims {
    T scale;
};

template <template <typename> class... Wrappers>
struct Wrapped {};

template <typename T, typename... Rest>
__device__ T first_of(T first, Rest... rest) { return first; }

struct UsesTuple {
    Tuple<int, float, double> t;
    Dims<float, 2, 3> d;
};
