// Template defaults written inside a namespace, naming what it declares (as CUB writes
// `WarpReduce<T, LOGICAL_WARP_THREADS = detail::warp_threads>` inside `namespace cub`): a
// constant in a nested namespace, which means nothing at global scope.
#pragma once

namespace nd {
namespace detail {
constexpr int warp_threads = 32;
constexpr int lanes = 4;
}  // namespace detail

template <class T, int Threads = detail::warp_threads, int Lanes = detail::lanes>
struct Reducer {
  T base;
  __device__ explicit Reducer(T b) : base(b) {}
  __device__ T combine(T x) const { return base * x + T(Threads) + T(Lanes) / T(8); }
};

template <class T, int N = detail::warp_threads>
__device__ T scale(T x) {
  return x * N;
}
}  // namespace nd
