// Implicit instantiations of a namespaced class template that only appear as field and
// parameter types: the parser reports them with the layout and members clang instantiated.
#pragma once

namespace geo {

template <typename T, int N>
struct Arr {
    T v[N];
    __device__ T get(int i) const { return v[i]; }
    __device__ void set(int i, T x) { v[i] = x; }
    __device__ Arr plus(const Arr &o) const;
};

template <typename T>
struct Pair {
    T first;
    T second;
};

struct Body {
    Arr<float, 3> position;       // complete: the field needs its layout
    Arr<Pair<int>, 2> links;      // an instance whose element type is another instance
};

__device__ float norm(const Arr<float, 4> &a);     // named through a reference only
__device__ double first(Arr<double, 2> a) { return a.v[0]; }  // by value in a definition

template <typename T>
__device__ T head(const Arr<T, 4> &a) { return a.v[0]; }  // dependent: no instance

}  // namespace geo
