// Declarations a header writes for compilers other than NVRTC (which defines __CUDACC_RTC__,
// and compiles every shim): clang sees them, NVRTC never does. They are host-only for the
// import; what NVRTC sees binds.
#pragma once

struct Pair2f {
  float x;
  float y;
};

struct Meters {
  float value;
  __device__ Meters(float v) : value(v) {}
#if !defined(__CUDACC_RTC__)
  __device__ Meters(Pair2f p) : value(p.x + p.y) {}
  __device__ explicit operator Pair2f() const { return Pair2f{value, 0.0f}; }
#endif
  __device__ float twice() const { return 2.0f * value; }
};

#ifndef __CUDACC_RTC__
__device__ float first_of(Pair2f p) { return p.x; }
#endif

#ifdef __CUDACC_RTC__
#define NBI_SEEN_BY_NVRTC 1
#elif defined(NBI_ANYTHING)
__device__ float under_elif(float x) { return x; }
#else
__device__ float under_else(float x) { return x; }
#endif

#if !defined(__CUDACC_RTC__) && \
    !defined(NBI_ANYTHING)
__device__ float under_conjunction(float x) { return x; }
#endif

// Not a condition NVRTC is known to drop: read as visible, and it is.
#if !defined(__CUDACC_RTC__) || defined(__CUDACC__)
__device__ float either_way(float x) { return 3.0f * x; }
#endif

__device__ float scaled(Meters m, float k) { return m.value * k; }

// A library's own configuration macro, function-like and defined per compiler (as CCCL's
// _CCCL_HOSTED() is 0 under NVRTC): what it hides is host-only too, as NVRTC evaluates it.
#if defined(__CUDACC_RTC__)
#  define NBI_HOSTED() 0
#else
#  define NBI_HOSTED() 1
#endif
#define NBI_ALWAYS() 1

#if NBI_HOSTED() && !defined(NBI_DOCS)
__device__ float under_a_macro(float x) { return x + 1.0f; }
#endif

#if NBI_ALWAYS()
// Declared, never defined: NVRTC rejects its shim, and the condition holds there: not hidden.
__device__ inline float never_defined(float x);
#endif

// Declared inline and defined nowhere (cooperative groups' thread_group::num_threads): NVRTC
// never sees a definition, and no other translation unit may give one.
struct Gauge {
  float level;
  __device__ __forceinline__ float halved() const;
};
