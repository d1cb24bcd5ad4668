// Default arguments on parameters.
#pragma once

#define DEFAULT_SCALE 2.5f

__device__ float blend(float a, float b, float t = 0.5f);
__device__ int clamp_to(int v, int lo = -(1 << 4), int hi = sizeof(int) * 8);
__device__ float scaled(float v, float s = DEFAULT_SCALE);
__device__ int first(const int values[3], int fallback = 0);
