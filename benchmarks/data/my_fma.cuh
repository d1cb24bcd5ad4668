// The bound function of benchmarks/binding_overhead.py.
#pragma once
__device__ inline float my_fma(float a, float b, float c) { return a * b + c; }
