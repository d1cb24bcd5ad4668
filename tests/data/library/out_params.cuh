// Members that write through references: T& outputs of void members, arrays by reference
// (T (&)[N]) as in and out parameters, a member template taking an iterator and an array,
// trailing parameters with defaults, and an in-out reference that takes an intent.
#pragma once

namespace op {
template <class T, int N> struct Items {
  __device__ void Next(T x, T &next) const { next = x + T(1); }
  __device__ void NextAndDouble(T x, T &next, T &twice) const {
    next = x + T(1);
    twice = x + x;
  }
  __device__ void Fill(T (&items)[N], T start) const {
    for (int i = 0; i < N; ++i) items[i] = start + T(i);
  }
  __device__ T Total(T (&items)[N]) const {
    T total = T(0);
    for (int i = 0; i < N; ++i) total += items[i];
    return total;
  }
  template <class It> __device__ void Gather(It source, T (&items)[N]) const {
    for (int i = 0; i < N; ++i) items[i] = source[i];
  }
  __device__ void Sort(T (&items)[N], int begin = 0, int end = N) const {
    for (int i = begin + 1; i < end; ++i)
      for (int j = i; j > begin && items[j] < items[j - 1]; --j) {
        T held = items[j];
        items[j] = items[j - 1];
        items[j - 1] = held;
      }
  }
  __device__ void Accumulate(T x, T &total) const { total += x; }
};
}  // namespace op
