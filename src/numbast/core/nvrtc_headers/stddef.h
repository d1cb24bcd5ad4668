// numbast stand-in for <stddef.h> under NVRTC: size_t and ptrdiff_t are NVRTC's own,
// offsetof and max_align_t come from libcu++, NULL from here.
#ifndef __NUMBAST_STANDIN_STDDEF_H
#define __NUMBAST_STANDIN_STDDEF_H

#if __has_include(<cuda/std/cstddef>)
#include <cuda/std/cstddef>
#endif

#ifndef NULL
#define NULL 0
#endif
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif

#endif
