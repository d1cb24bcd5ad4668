// Template parameter defaults written inside a namespace, naming what that namespace declares:
// an enumerator, a variable in a nested namespace, a type, a scoped enumerator, a variable
// template, a function template, a nested template-id ending in `>>`, and names behind an
// inline namespace. Each default means something only where it is written.
#pragma once

namespace lib {
inline namespace v1 {
struct Tag {};
}

struct NullType {};
enum Algorithm { ALGO_RAKING, ALGO_WARP };
enum class Mode { fast, exact };

namespace detail {
constexpr int warp_threads = 32;
template <class T>
struct less {};
}  // namespace detail

template <class T>
constexpr bool is_small_v = sizeof(T) <= 4;

template <class T>
__host__ __device__ constexpr int twice() {
  return 2 * sizeof(T);
}

template <class T, Algorithm A = ALGO_WARP, int Threads = detail::warp_threads,
          class Extra = NullType, class Cmp = detail::less<detail::less<T>>, Mode M = Mode::exact,
          bool Small = is_small_v<T>, int Twice = twice<T>(), class Marker = Tag>
struct Reducer {
  template <class U = NullType, int K = detail::warp_threads>
  __device__ int member(U u) const {
    return K;
  }
};

template <class T, int N = detail::warp_threads>
__device__ T scale(T x) {
  return x * N;
}

template <class T, class E = NullType>
using ReducerOf = Reducer<T, ALGO_RAKING, 8, E>;

}  // namespace lib

template <class T = lib::NullType>
struct Global {};
