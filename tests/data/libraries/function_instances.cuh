// A function template called in a default template argument (libcu++'s
// __numeric_limits_impl<T, __make_numeric_limits_type<T>()>): clang lists the instances the
// defaults instantiated at the top level of the unit; only the template is a declaration.
#pragma once

namespace fi {

enum class kind { narrow, wide };

template <class T>
__device__ constexpr kind kind_of() {
  return sizeof(T) > 4 ? kind::wide : kind::narrow;
}

template <class T, kind K = kind_of<T>()>
struct info {
  T value;
};

__device__ inline int width(info<float> a, info<double> b) { return 4 + 8; }

}  // namespace fi
