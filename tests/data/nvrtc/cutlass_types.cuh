// CUTLASS's numeric types as a header of their own: plain C++ with CUTLASS_HOST_DEVICE macros
// and host-only parts behind __CUDACC_RTC__ (NVRTC compiles it with -default-device).
#pragma once
#include <cutlass/complex.h>
#include <cutlass/half.h>
#include <cutlass/numeric_types.h>
