// The library the documentation's examples call my_lib (tests/test_docs_commands.py): what
// docs/import_system.md, docs/kernel_cache.md, docs/ast_canopy.md and docs/static_config.md
// use from it, one declaration each.
#pragma once
#include "my_lib_ops.hpp"

struct Vec2 {
  float x;
  float y;
  __device__ Vec2(float x_, float y_) : x(x_), y(y_) {}
};

__device__ inline float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }

// A number kept in a register (Types: {my_half: Number}, Data Models: PrimitiveModel).
struct my_half {
  unsigned short bits;
};

__device__ inline float my_lib_add(float a, float b) { return a + b; }
__device__ inline int my_lib_internal(int x) { return x; }  // Exclude: {Function: [...]}
__device__ inline int internal_helper(int x) { return x; }  // exclude_functions=[...]

#ifdef FAST
__device__ inline float my_lib_scale(float x) { return 2.0f * x; }
#else
__device__ inline float my_lib_scale(float x) { return x + x; }
#endif
