// A small header for the import-system tests: a struct, a function, and an included file.
#pragma once
#include "scale.h"

struct Vec2 {
  float x;
  float y;
  __device__ Vec2(float x_, float y_) : x(x_), y(y_) {}
};

__device__ inline float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
__device__ inline float scaled_dot(Vec2 a, Vec2 b) { return SCALE * dot(a, b); }
