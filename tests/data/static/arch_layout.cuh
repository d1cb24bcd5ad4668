// A struct whose layout depends on the arch: one module cannot bind it for sm_80 and sm_90.
#pragma once

struct per_arch {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  double wide;
#else
  int narrow;
#endif
};
