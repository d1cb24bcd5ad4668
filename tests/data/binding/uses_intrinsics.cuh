// A header that uses the toolkit's sm_32 intrinsics and retains them: clang's CUDA wrapper hides
// sm_32_intrinsics.h (it defines __ldg itself and the header's include guard), NVRTC reads it.
#pragma once

#include <sm_32_intrinsics.h>

__device__ inline float twice_loaded(const float* p) { return 2.0f * __ldg(p); }
