// Templates no instance of int arguments compiles, one pattern each: what coverage's
// representative instances must try (tests/test_template_probes.py).
#pragma once

#include "template_probes_detail.cuh"  // not retained: the module binds nothing of it

namespace tp {

// A class type of the module (cooperative groups' thread_block).
struct Group {
  static constexpr int width = 32;
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

// Type parameters no function parameter names, given explicitly (cooperative groups'
// check_reduce_params<TyGroup, TyVal, TyRet>()): a class fits where int does not.
template <class G>
__device__ int width_of() { return G::width; }

// A class parameter only an instance of a size fits (cooperative groups'
// multi_warp_sync_location_getter(group) takes a multi-warp tile).
template <class G>
__device__ int words_of(const G &group) { return group.count(); }

// Alias templates of a class template the module does not bind (cooperative groups' traits
// name cuda::std::integral_constant<bool, expr>): their instances are types a kernel gives as
// template arguments.
template <int N>
using is_small = tp_detail::flag<(N < 8)>;
template <int N>
using is_even = tp_detail::flag<(N % 2 == 0)>;

// Takes such a type (a trait) as its argument.
template <class Trait>
struct Pick {
  __device__ int operator()(int yes, int no) const { return Trait::value ? yes : no; }
};

// A second function object, so that which one a template template parameter got shows.
template <class T>
struct Times {
  __device__ T operator()(T a, T b) const { return a * b; }
};

// Template template parameters (cooperative groups' details::pick_redux<TyOp>(mask, val),
// details::reduce(group, val, TyOp<TyFnInput> &&op), redux_op_supported<Ty, TyOp>): the
// argument is a class template; given explicitly, deduced from an instance, or in an alias.
template <template <class> class Op, class T>
__device__ T apply_op(T a, T b) { return Op<T>()(a, b); }

template <class T, template <class> class Op>
__device__ T fold_with(const Op<T> &op, T a, T b) { return op(op(a, b), b); }

template <class T, template <class> class Op>
using op_for = Op<T>;

// Explicit specializations a call cannot deduce (cooperative groups' pick_redux<plus>(int, int)):
// reached through their template, pick[M.Times](a, b).
template <template <class> class Op>
__device__ int pick(int a, int b);
template <>
__device__ int pick<Plus>(int a, int b) { return a + b + 1000; }
template <>
__device__ int pick<Times>(int a, int b) { return a * b + 2000; }

// A function object called with one argument, its call operator a template (libcu++'s
// cuda::std::identity): the module's only unary one, beside binary Plus and Times.
struct Negate {
  template <class T>
  __device__ T operator()(T x) const { return -x; }
};

// An iterator, an array reference and a function object called with one argument, last (CUB's
// detail::load_transform_direct_striped): a pointer and a unary function object together.
template <int Threads, class T, int N, class InputIt, class TransformOp>
__device__ void load_transformed(int tid, InputIt it, T (&items)[N], TransformOp op) {
  for (int i = 0; i < N; ++i) items[i] = op(it[tid + i * Threads]);
}

// No argument fits: stays not bound, with the compiler's reason.
template <class T>
__device__ int needs_member(T value) { return value.no_such_member(); }

}  // namespace tp
