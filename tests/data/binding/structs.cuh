// Structs: fields with access specifiers, constructors of every kind, conversions, methods.
#pragma once

struct Counter {
 public:
  int count;
  float weight;

 private:
  int secret;

 public:
  __device__ Counter() : count(0), weight(1.0f), secret(7) {}
  __device__ Counter(int c, float w) : count(c), weight(w), secret(7) {}
  __device__ Counter(int c) : count(c), weight(1.0f), secret(7) {}          // implicit converting
  __device__ explicit Counter(double w) : count(0), weight((float)w), secret(7) {}
  Counter(const Counter& other) = default;

  __device__ int scaled(int by) const { return count * by; }
  __device__ float total() const { return count * weight; }
  __device__ int get_secret() const { return secret; }
  __device__ void bump(int by) { count += by; }                 // non-const: mutates
  __device__ int take(int n) { count -= n; return count * 10; }   // mutates and returns

  static __device__ Counter make(int c) { return Counter(c, 2.0f); }  // static: Counter.make()
  static __device__ int twice(int x) { return 2 * x; }
  static __device__ float twice(float x) { return 2.5f * x; }

  __device__ operator float() const { return count * weight; }
  __device__ explicit operator bool() const { return count != 0; }
};

__device__ inline int counter_value(Counter c) { return c.count; }

// With Counter(int) implicit, this operator must still never apply to two plain ints.
__device__ inline bool operator<(const Counter& a, const Counter& b) { return a.count < b.count; }

// An opaque, over-aligned type: no fields visible, still passed by value correctly.
struct alignas(16) Opaque16 {
 private:
  unsigned int words[3];

 public:
  __device__ Opaque16(unsigned int a) { words[0] = a; words[1] = a + 1; words[2] = a + 2; }
  __device__ unsigned int sum() const { return words[0] + words[1] + words[2]; }
};
