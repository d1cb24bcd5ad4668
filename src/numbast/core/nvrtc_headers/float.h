// numbast stand-in for <float.h> under NVRTC: the IEEE 754 binary32 and binary64 limits.
// Newer libcu++ defines them under NVRTC; older ones do not, so they are written here too
// (hexadecimal literals: the exact values).
#ifndef __NUMBAST_STANDIN_FLOAT_H
#define __NUMBAST_STANDIN_FLOAT_H

#if __has_include(<cuda/std/cfloat>)
#include <cuda/std/cfloat>
#endif

#ifndef FLT_RADIX
#define FLT_RADIX 2
#endif
#ifndef FLT_ROUNDS
#define FLT_ROUNDS 1
#endif
#ifndef FLT_EVAL_METHOD
#define FLT_EVAL_METHOD 0
#endif
#ifndef DECIMAL_DIG
#define DECIMAL_DIG 17
#endif

#ifndef FLT_MAX
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_DECIMAL_DIG 9
#define FLT_MIN_EXP (-125)
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_EXP 128
#define FLT_MAX_10_EXP 38
#define FLT_MAX 0x1.fffffep+127f
#define FLT_MIN 0x1p-126f
#define FLT_TRUE_MIN 0x1p-149f
#define FLT_EPSILON 0x1p-23f
#define FLT_HAS_SUBNORM 1
#endif

#ifndef DBL_MAX
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_DECIMAL_DIG 17
#define DBL_MIN_EXP (-1021)
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_EXP 1024
#define DBL_MAX_10_EXP 308
#define DBL_MAX 0x1.fffffffffffffp+1023
#define DBL_MIN 0x1p-1022
#define DBL_TRUE_MIN 0x1p-1074
#define DBL_EPSILON 0x1p-52
#define DBL_HAS_SUBNORM 1
#endif

#endif
