// helper_math.h-style overloads of the toolkit's vector functions and of one name across two
// retained headers: make_float3(float2, float) here, make_float3(float, float, float) in the
// toolkit's vector_functions.h, scaled(...) here and in vec_overloads_more.cuh.
#pragma once
#include <vector_functions.h>

#include "vec_overloads_more.cuh"

inline __device__ float3 make_float3(float s) { return make_float3(s, s, s); }
inline __device__ float3 make_float3(float2 a, float s) { return make_float3(a.x, a.y, s); }
inline __device__ int2 make_int2(int s) { return make_int2(s, s); }
inline __device__ float scaled(float x) { return 2.0f * x; }
