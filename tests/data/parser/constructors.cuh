// Constructors of every kind, and a destructor.
#pragma once

struct Widget {
    int value;

    __device__ Widget() = default;
    __device__ Widget(const Widget &other) = default;
    __device__ Widget(Widget &&other) = default;
    __device__ Widget(int v) : value(v) {}
    __device__ explicit Widget(float f) : value(static_cast<int>(f)) {}
    __device__ Widget(int a, int b) : value(a + b) {}
    __device__ Widget(double d, int scale = 2) : value(static_cast<int>(d) * scale) {}
    __device__ ~Widget() {}
    Widget(const char *) = delete;
};
