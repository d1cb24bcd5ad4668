// Conversion functions: implicit, explicit, const.
#pragma once

struct Fixed {
    int raw;

    __device__ operator float() const { return raw / 256.0f; }
    __device__ explicit operator bool() const { return raw != 0; }
    __host__ __device__ operator int() { return raw >> 8; }
};
