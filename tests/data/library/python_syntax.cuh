// Operators a kernel written in Python has no syntax for (assignment, ++ and --, !, literal
// suffixes) beside ones it has (+, +=, [] to read an element).
#pragma once

struct Tally {
  int n;
  __device__ Tally(int v) : n(v) {}
  __device__ Tally &operator=(int v) { n = v; return *this; }
  __device__ Tally &operator++() { ++n; return *this; }
  __device__ Tally operator++(int) { Tally old = *this; ++n; return old; }
  __device__ bool operator!() const { return n == 0; }
  __device__ Tally &operator+=(int v) { n += v; return *this; }
  __device__ int operator[](int i) const { return n * i; }
};

__device__ Tally &operator--(Tally &t) { --t.n; return t; }
__device__ Tally operator""_tally(unsigned long long v) { return Tally(static_cast<int>(v)); }
__device__ Tally operator+(Tally a, Tally b) { return Tally(a.n + b.n); }
