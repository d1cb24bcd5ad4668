// Templates no instance of int arguments compiles, one pattern each: what coverage's
// representative instances must try (tests/test_template_probes.py).
#pragma once

namespace tp {

// A class type of the module (cooperative groups' thread_block).
struct Group {
  int rank;
  __device__ explicit Group(int r) : rank(r) {}
  __device__ int thread_rank() const { return rank; }
};

// A function object of the module (cooperative groups' plus<T>).
template <class T>
struct Plus {
  __device__ T operator()(T a, T b) const { return a + b; }
};

// An iterator and an array reference (CUB's LoadDirectBlocked / StoreDirectBlocked): the
// iterator is dereferenced, so int is no instance; a pointer is.
template <class T, int N, class InputIt>
__device__ void load_blocked(int tid, InputIt it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) items[i] = it[tid * N + i];
}

template <class T, int N, class OutputIt>
__device__ void store_blocked(int tid, OutputIt it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) it[tid * N + i] = items[i] * 2;
}

// A class-type parameter (cooperative groups' thread_rank(group)).
template <class G>
__device__ int rank_of(const G &group) { return group.thread_rank(); }

// A class and a function object (cooperative groups' reduce(group, value, op)).
template <class G, class T, class Op>
__device__ T combine(const G &group, T value, Op op) {
  return op(value, static_cast<T>(group.thread_rank()));
}

// A size only some values fit (cooperative groups' multi-warp tiles: 64 to 512).
template <unsigned Size>
struct Wide {
  static_assert(Size >= 64 && Size % 64 == 0, "Size must be a multiple of 64");
  int words[Size / 64];
  __device__ int count() const { return Size / 64; }
};

// No argument fits: stays not bound, with the compiler's reason.
template <class T>
__device__ int needs_member(T value) { return value.no_such_member(); }

}  // namespace tp
