// numbast stand-in for <math.h> under NVRTC. The functions are CUDA's own (sqrtf, sin, fma...
// are built into NVRTC, in the global namespace, for float and double); __numbast/
// math_overloads.h adds what the host's <math.h> has in C++: integer arguments converted to
// double, fpclassify, isnormal, isgreater and the other comparisons. The macros are written
// here: INFINITY and NAN (as CUDA's math_constants.h writes its constants; libcu++'s
// <cuda/std/cmath> included later redefines them, with a warning), HUGE_VAL, the
// classification values, and the M_* constants that glibc's <math.h> declares for C++.
#ifndef __NUMBAST_STANDIN_MATH_H
#define __NUMBAST_STANDIN_MATH_H

#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __int_as_float(0x7f800000)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif

#ifndef FP_NAN
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif
#ifndef FP_ILOGB0
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#endif

#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif

#include <__numbast/math_overloads.h>

#endif
