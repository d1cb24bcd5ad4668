// Overloaded operators: members of a struct and free functions.
#pragma once

struct Vec2 {
    float x, y;

    __device__ Vec2 &operator+=(const Vec2 &o) { x += o.x; y += o.y; return *this; }
    __device__ float operator[](int i) const { return i ? y : x; }
    __device__ float operator()(float s) const { return s * (x + y); }
    __device__ Vec2 operator-() const { return Vec2{-x, -y}; }
};

__device__ Vec2 operator+(const Vec2 &a, const Vec2 &b);
__device__ Vec2 operator*(const Vec2 &a, float s);
__device__ bool operator==(const Vec2 &a, const Vec2 &b);
__device__ bool operator<(const Vec2 &a, const Vec2 &b);
__device__ float operator_count(int n);  // not an operator: an identifier that starts so
