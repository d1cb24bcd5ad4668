// Template parameters written by macros, as libcu++ writes constrained templates
// (`_CCCL_TEMPLATE(class T) _CCCL_REQUIRES(...)`): the parameters' source extent is the macro
// invocation, so their defaults come from the macro's expansion.
#pragma once

#define MT_TEMPLATE(...) template <__VA_ARGS__
#define MT_REQUIRES(...) , bool mt_true_ = true, typename mt::enable_if<(__VA_ARGS__) && mt_true_, int>::type = 0 >
#define MT_DEFAULT_WIDTH mt::detail::width

namespace mt {
template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  typedef T type;
};
namespace detail {
constexpr int width = 4;
}

MT_TEMPLATE(class T) MT_REQUIRES(sizeof(T) == 4)
__device__ int four_bytes(T x) { return 4; }

template <class T, int W = MT_DEFAULT_WIDTH>
__device__ int widened(T x) { return W; }
}  // namespace mt
