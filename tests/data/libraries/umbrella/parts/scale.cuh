#pragma once
__device__ inline float umbrella_scale(float x) { return 2.0f * x; }
