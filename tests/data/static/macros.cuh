// A declaration that exists only when a macro is defined (Predefined Macros).
#pragma once

#ifdef STATIC_FEATURE
__device__ inline int feature_value() { return STATIC_FEATURE; }
#endif
__device__ inline int always_there() { return 1; }
