// Members that return a reference to their own object, with a defaulted argument (Random123's
// `r123array2x64& incr(R123_ULONG_LONG n = 1)`,
// builder-style setters): the call updates the object and its result is that object.
#pragma once

struct Counter2 {
    unsigned int v[2];
    __device__ Counter2 &incr(unsigned long long n = 1) {
        unsigned int low = v[0];
        v[0] += static_cast<unsigned int>(n);
        if (v[0] < low) ++v[1];
        return *this;
    }
    __device__ Counter2 &set(unsigned int lo, unsigned int hi) {
        v[0] = lo;
        v[1] = hi;
        return *this;
    }
};

__device__ inline Counter2 &bump(Counter2 &c) { return c.incr(2); }

// Defaulted trailing arguments of a free function: calls may leave them out.
__device__ inline unsigned int step(unsigned int x, unsigned int by = 1, unsigned int times = 2) {
    return x + by * times;
}
