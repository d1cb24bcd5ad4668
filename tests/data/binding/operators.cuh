// Operators: free and member, binary, unary, comparison and compound assignment.
#pragma once

struct OpVec {
  float x, y;
  __device__ OpVec() : x(0), y(0) {}
  __device__ OpVec(float x_, float y_) : x(x_), y(y_) {}

  __device__ OpVec operator-(const OpVec& o) const { return OpVec(x - o.x, y - o.y); }
  __device__ OpVec operator-() const { return OpVec(-x, -y); }
  __device__ OpVec& operator*=(float s) { x *= s; y *= s; return *this; }
  __device__ bool operator<(const OpVec& o) const { return x * x + y * y < o.x * o.x + o.y * o.y; }
};

__device__ inline OpVec operator+(const OpVec& a, const OpVec& b) { return OpVec(a.x + b.x, a.y + b.y); }
__device__ inline OpVec operator*(const OpVec& a, float s) { return OpVec(a.x * s, a.y * s); }
__device__ inline float operator*(const OpVec& a, const OpVec& b) { return a.x * b.x + a.y * b.y; }
__device__ inline bool operator==(const OpVec& a, const OpVec& b) { return a.x == b.x && a.y == b.y; }
__device__ inline OpVec& operator+=(OpVec& a, const OpVec& b) { a.x += b.x; a.y += b.y; return a; }
