// The second retained header of vec_overloads.cuh: more overloads of its names.
#pragma once
#include <vector_types.h>

inline __device__ float scaled(float x, float k) { return k * x; }
inline __device__ float3 scaled(float3 v, float k) { return {k * v.x, k * v.y, k * v.z}; }
