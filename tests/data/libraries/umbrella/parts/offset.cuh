#pragma once
__device__ inline float umbrella_offset(float x) { return x + 1.0f; }
