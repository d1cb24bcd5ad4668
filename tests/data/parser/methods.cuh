// Member functions: const and non-const overloads, static, private.
#pragma once

struct Buffer {
    int data[4];

    __device__ int &at(int i) { return data[i]; }
    __device__ const int &at(int i) const { return data[i]; }
    __device__ int size() const { return 4; }
    __device__ void clear() { data[0] = 0; }
    __device__ static int capacity() { return 4; }

  private:
    __device__ void reset_all() {}
};
