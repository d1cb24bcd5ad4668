// One header for the numba-cuda-mlir backend: a struct with fields, constructors, a const
// method, free and member operators and a conversion; scoped and unscoped enums crossing a
// function; a function returning through an out parameter; and a class template.
#pragma once

namespace shapes {

enum class Unit { Meters = 1, Feet = 3 };
enum Axis { AXIS_X = 0, AXIS_Y = 1 };

struct Point {
  float x, y;
  __device__ Point() : x(0), y(0) {}
  __device__ Point(float x_, float y_) : x(x_), y(y_) {}
  __device__ float norm2() const { return x * x + y * y; }
  __device__ float along(Axis axis) const { return axis == AXIS_X ? x : y; }
  __device__ Point operator-(const Point &o) const { return Point(x - o.x, y - o.y); }
  __device__ explicit operator double() const { return double(x) + double(y); }
};

__device__ inline Point operator+(const Point &a, const Point &b) { return Point(a.x + b.x, a.y + b.y); }
__device__ inline Point operator*(const Point &a, float s) { return Point(a.x * s, a.y * s); }
__device__ inline bool operator==(const Point &a, const Point &b) { return a.x == b.x && a.y == b.y; }

__device__ inline float dot(const Point &a, const Point &b) { return a.x * b.x + a.y * b.y; }
__device__ inline float in_unit(float meters, Unit unit) { return unit == Unit::Feet ? meters * 3.28084f : meters; }
__device__ inline Unit bigger(Unit a, Unit b) { return int(a) > int(b) ? a : b; }
__device__ inline void split(const Point &p, float &x, float &y) { x = p.x; y = p.y; }

template <class T>
struct Pair {
  T first, second;
  __device__ Pair(T a, T b) : first(a), second(b) {}
  __device__ T sum() const { return first + second; }
  __device__ Pair operator+(const Pair &o) const { return Pair(first + o.first, second + o.second); }
};

}  // namespace shapes
