// One declaration of each kind a header module exposes by name: a struct and a typedef of it,
// unscoped and scoped enums, a class and a function template, a function, and a kernel.
#pragma once

struct Particle {
  float x;
  float v;
};
typedef Particle Body;  // names a bound struct: an alias of it
typedef float Scalar;   // names a builtin: nothing to alias

enum Mode { SLOW = 1, FAST = 2 };  // unscoped: its enumerators are module names too
enum class Axis { X, Y };

namespace phys {
template <typename T>
struct Box {
  T value;
  __device__ T get() const { return value; }
};

template <typename T>
__device__ T twice(T a) {
  return a + a;
}
}  // namespace phys

__device__ inline float advance(Particle p, float dt) { return p.x + p.v * dt; }

__global__ void step(Particle *particles, int n, float dt) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) particles[i].x = advance(particles[i], dt);
}
