// NVIDIA Numbast's dynamic API on our bindings: nested records and arrays, method intents,
// a non-inline definition (linked once per shim writer), a host-only function.
#pragma once

struct Pod {
  struct Inner {
    int tag;
    float value;
  };
  Inner inner;
  float grid[2][3];
};

typedef Pod PodAlias;

__device__ inline Pod make_pod(int tag) {
  Pod p{};
  p.inner.tag = tag;
  p.inner.value = 0.5f * tag;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      p.grid[i][j] = 10.0f * i + j;
  return p;
}

struct Counter {
  int n;
  __device__ Counter() : n(40) {}
  __device__ void add_into(int x, int &out) const { out = n + x; }
};

__device__ int twice(int x) { return 2 * x; }  // not inline: one definition per link

#ifndef __CUDACC_RTC__  // host code: the parser sees it, NVRTC (which rejects it) does not
__host__ int host_only(int x);
#endif

__device__ int add(int a, int b) { return a + b; }
