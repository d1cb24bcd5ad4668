// Structs whose C++ layout has padding an LLVM struct of the same fields would not have:
// a CUDA vector field after a narrower one (float2 aligns to 8 in C++, to 4 as {float, float}),
// tail padding from a vector field, and alignas.
#pragma once
#include <vector_types.h>

struct Particle {
  float mass;
  float2 pos;  // offset 8 in C++
};

struct Body {
  float2 vel;
  float mass;  // C++ size 16 (tail padding), 12 for {{float, float}, float}
};

struct Tagged {
  char tag;
  alignas(16) float value;  // offset 16
};

__device__ inline Particle make_particle(float m, float x, float y) {
  Particle p;
  p.mass = m;
  p.pos = make_float2(x, y);
  return p;
}

__device__ inline float particle_sum(Particle p) { return p.mass + p.pos.x + p.pos.y; }

__device__ inline Body make_body(float vx, float vy, float m) {
  Body b;
  b.vel = make_float2(vx, vy);
  b.mass = m;
  return b;
}

__device__ inline float body_sum(Body b) { return b.vel.x + b.vel.y + b.mass; }

__device__ inline Tagged make_tagged(char tag, float value) {
  Tagged t;
  t.tag = tag;
  t.value = value;
  return t;
}

__device__ inline float tagged_value(Tagged t) { return t.value + float(t.tag); }
