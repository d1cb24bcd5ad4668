// Cooperative objects that live on storage their users provide (as CUB's primitives take their
// TempStorage): a nested TempStorage record, and a TempStorage alias of a private type as the
// only constructor's parameter.
#pragma once

namespace ts {
template <class T, int Threads> class BlockTotal {
 public:
  struct TempStorage {
    T slots[Threads];
  };
  __device__ explicit BlockTotal(TempStorage &storage) : storage_(storage) {}
  __device__ T Total(T x) {
    storage_.slots[threadIdx.x] = x;
    __syncthreads();
    T total = T(0);
    for (int i = 0; i < Threads; ++i) total += storage_.slots[i];
    __syncthreads();
    return total;
  }

 private:
  TempStorage &storage_;
};

template <class T> class RingNeighbor {
  struct Ring {
    T values[64];
    int filled;
  };

 public:
  using TempStorage = Ring;
  __device__ explicit RingNeighbor(TempStorage &storage) : ring_(storage) {}
  __device__ T Next(T x, int count) {
    ring_.values[threadIdx.x] = x;
    __syncthreads();
    T next = ring_.values[(threadIdx.x + 1) % count];
    __syncthreads();
    return next;
  }

 private:
  TempStorage &ring_;
};
}  // namespace ts
