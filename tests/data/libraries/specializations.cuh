// Class templates only declared, defined by their specializations (CUTLASS's
// Array<T, N, bool RegisterSized = ...> is Array<T, N, true> and Array<T, N, false>), and
// explicit specializations whose arguments are enumerators (libcu++'s
// __numeric_limits_impl<float, __numeric_limits_type::__floating_point>) or named constants
// (cooperative groups' tile_reduce_dispatch<details::coalesced_group_id>): their names must
// mean the same where shims spell them.
#pragma once

namespace spec {

enum class kind { integral, floating };
enum layout { flat, packed };  // unscoped: its enumerators live in namespace spec

template <class T, kind K>
struct limits;  // declared only

template <>
struct limits<float, kind::floating> {
  __device__ static float largest() { return 3.0e38f; }
};

template <>
struct limits<int, kind::integral> {
  __device__ static int largest() { return 2147483647; }
};

template <class T, layout L>
struct store;

template <>
struct store<float, packed> {
  float v[2];
  __device__ store(float a, float b) : v{a, b} {}
  __device__ float sum() const { return v[0] + v[1]; }
};

namespace detail {
constexpr unsigned int block_id = 4;
}

template <unsigned int Id>
struct dispatch;

template <>
struct dispatch<detail::block_id> {  // spelled dispatch<4U>
  __device__ static int id() { return 40; }
};

template <class T, int N, bool Big = (sizeof(T) >= 4)>
struct Pack;  // declared only; the partial specializations define it

template <class T, int N>
struct Pack<T, N, true> {
  T data[N];
  __device__ Pack(T a) {
    for (int i = 0; i < N; ++i) data[i] = a + i;
  }
  __device__ T last() const { return data[N - 1]; }
};

template <class T, int N>
struct Pack<T, N, false> {
  T data[N];
  __device__ Pack(T a) {
    for (int i = 0; i < N; ++i) data[i] = a;
  }
  __device__ T last() const { return -data[N - 1]; }
};

}  // namespace spec
