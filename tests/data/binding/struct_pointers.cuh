// Functions that take a pointer to a struct and update it (the cuRAND pattern), and a plain C
// struct with no declared constructor (made with T() or T{fields}).
#pragma once

struct Walker {
  unsigned int position;
  unsigned int steps;
};

__device__ inline void walker_init(unsigned int start, Walker *w) {
  w->position = start;
  w->steps = 0;
}

__device__ inline unsigned int walker_step(Walker *w) {
  w->position = w->position * 1664525u + 1013904223u;
  w->steps += 1;
  return w->position;
}

// Two struct pointers: both are updated.
__device__ inline void walker_swap(Walker *a, Walker *b) {
  Walker t = *a;
  *a = *b;
  *b = t;
}

__device__ inline unsigned int walker_peek(const Walker *w) { return w->position; }

// A by-value overload beside the pointer one: a struct argument calls this one, as in C++.
__device__ inline unsigned int walker_total(Walker w) { return w.position + w.steps; }
__device__ inline unsigned int walker_total(Walker *w) { return 1000u; }
