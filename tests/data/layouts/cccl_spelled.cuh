// Names libcu++ through the cccl/ directory under CUDA 13 compilers, as CUTLASS's
// CUDA_STD_HEADER does: nvcc and NVRTC 13 read <cccl/cuda/std/cstdint>, clang (which defines no
// __CUDACC_VER_MAJOR__) reads <cuda/std/cstdint>.
#pragma once

#if (__CUDACC_VER_MAJOR__ >= 13)
#define LAYOUT_STD_HEADER(header) <cccl/cuda/std/header>
#else
#define LAYOUT_STD_HEADER(header) <cuda/std/header>
#endif

#include LAYOUT_STD_HEADER(cstdint)

__device__ inline cuda::std::uint32_t rotate_left(cuda::std::uint32_t x, int k) {
    return (x << k) | (x >> (32 - k));
}
