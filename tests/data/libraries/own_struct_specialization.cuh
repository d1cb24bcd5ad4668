// An explicit specialization whose argument is a struct of the same header, as CUTLASS writes
// `template <> struct platform::numeric_limits<cutlass::half_t>`: its C++ name is no Python
// identifier; the module reaches it as `M.limits[M.Half]`.
#pragma once

namespace lib {

struct Half {
    unsigned short bits;
    __device__ explicit Half(unsigned short b) : bits(b) {}
};

namespace platform {

template <class T>
struct limits;  // declared only: the specializations define it

template <>
struct limits<lib::Half> {
    __device__ static lib::Half max() { return lib::Half(0x7bff); }
    __device__ static int digits() { return 10; }
};

}  // namespace platform

__device__ inline unsigned short bits_of(Half h) { return h.bits; }

}  // namespace lib
