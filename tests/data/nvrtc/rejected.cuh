// Declarations clang accepts whose shims NVRTC rejects, each reported in its own way, beside
// ones that compile: an import leaves out only the rejected ones.
#pragma once

// Reported at the template's line, "detected during instantiation ... at line 2 of <shim>".
template <class T>
struct Holder {
  T value;
  __device__ T doubled() const { return value.twice(); }  // int has no member twice
  __device__ T plain() const { return value; }
};
__device__ Holder<int> make_holder(int v) { return Holder<int>{v}; }

// Reported at the declaration: "function "declared_only" was referenced but not defined".
__forceinline__ __device__ int declared_only(int x);

// Also at a declaration, for an operator, whose name no shim spells: pinned by compiling halves.
struct Meter {
  float v;
  __forceinline__ __device__ Meter operator+(const Meter& other) const;
};

// Fine: a result is constructed in the shim's result slot, never assigned (Counter's assignment
// is declared and never defined).
struct Counter {
  int n;
  __device__ Counter() : n(0) {}
  __device__ explicit Counter(int start) : n(start) {}
  __forceinline__ __device__ Counter& operator=(const Counter& other);
};
__device__ Counter counter_from(int start) { return Counter(start); }

__device__ int still_fine(int x) { return x + 1; }
__device__ float also_fine(float x) { return 2.0f * x; }
