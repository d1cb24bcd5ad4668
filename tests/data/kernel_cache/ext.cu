// A link= file for the kernel-cache tests: what it computes comes from the header it includes.
#include "ext_scale.h"

extern "C" __device__ int ext_scale(double *ret, double x) {
  *ret = x * EXT_SCALE;
  return 0;
}
