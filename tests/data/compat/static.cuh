// NVIDIA Numbast's static generator API on ours: a struct with a typedef, a function.
#pragma once

struct Foo {
  int x;
  __device__ Foo() : x(7) {}
};

typedef Foo Bar;

__device__ inline int add(int a, int b) { return a + b; }
