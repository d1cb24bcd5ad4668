// A function declared for sm_90 and newer only, and one declared for every arch (GPU Arch with
// several arches).
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ inline int only_on_sm90(int x) { return x + 90; }
#endif
__device__ inline int everywhere(int x) { return x + 1; }
