// Constants a header defines as object-like macros (as math_constants.h does), used in kernels
// as module constants of their C++ type next to the header's functions.
#pragma once

#define LM_PI_F 3.141592654f
#define LM_TWO_PI 6.2831853071795865
#define LM_MASK 0x80000000
#define LM_STEPS (-3)
#define LM_ENABLED true

__device__ inline float lm_scale(float x) { return x * LM_PI_F; }
