// numbast stand-in for <stdint.h> under NVRTC: the fixed-width integer types and their limits
// from libcu++ (<cuda/std/cstdint> declares them globally under NVRTC), plus the constant
// macros (INT64_C...) that it leaves out.
#ifndef __NUMBAST_STANDIN_STDINT_H
#define __NUMBAST_STANDIN_STDINT_H

#if __has_include(<cuda/std/cstdint>)
#include <cuda/std/cstdint>
#else
// No libcu++: the same spellings it would use, so both agree wherever both are seen.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
#endif

#ifndef INT8_MAX
#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#endif

#ifndef INTPTR_MAX
#define INTPTR_MIN INT64_MIN
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#endif

#ifndef SIZE_MAX
#define SIZE_MAX 18446744073709551615UL
#endif
#ifndef PTRDIFF_MAX
#define PTRDIFF_MIN (-9223372036854775807L - 1)
#define PTRDIFF_MAX 9223372036854775807L
#endif

#ifndef INT8_C
#define INT8_C(value) value
#define INT16_C(value) value
#define INT32_C(value) value
#define INT64_C(value) value##LL
#define UINT8_C(value) value
#define UINT16_C(value) value
#define UINT32_C(value) value##U
#define UINT64_C(value) value##ULL
#define INTMAX_C(value) value##LL
#define UINTMAX_C(value) value##ULL
#endif

#endif
