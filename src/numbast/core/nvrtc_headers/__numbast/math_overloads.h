// numbast stand-in headers for NVRTC (internal): what C++'s <math.h> adds to CUDA's math.
//
// CUDA's device math functions are built into NVRTC, in the global namespace, for float and for
// double; an integer argument matches both and is ambiguous. C++ (and the host's <math.h>,
// which clang parsed) converts integer arguments to double instead: these templates, exact
// matches for integer arguments, do that. Calls with float or double arguments keep CUDA's own
// functions (a non-template wins a tie). Also here: the classification and comparison
// functions NVRTC lacks (fpclassify, isnormal, isgreater...).
#ifndef __NUMBAST_STANDIN_MATH_OVERLOADS_H
#define __NUMBAST_STANDIN_MATH_OVERLOADS_H

namespace __numbast {
template <class T>
struct is_integer {
  static constexpr bool value = false;
};
#define __NUMBAST_INTEGER(type)            \
  template <>                              \
  struct is_integer<type> {                \
    static constexpr bool value = true;    \
  };
__NUMBAST_INTEGER(bool)
__NUMBAST_INTEGER(char)
__NUMBAST_INTEGER(signed char)
__NUMBAST_INTEGER(unsigned char)
__NUMBAST_INTEGER(short)
__NUMBAST_INTEGER(unsigned short)
__NUMBAST_INTEGER(int)
__NUMBAST_INTEGER(unsigned int)
__NUMBAST_INTEGER(long)
__NUMBAST_INTEGER(unsigned long)
__NUMBAST_INTEGER(long long)
__NUMBAST_INTEGER(unsigned long long)
#undef __NUMBAST_INTEGER

template <class T>
struct is_number {
  static constexpr bool value = is_integer<T>::value;
};
template <>
struct is_number<float> {
  static constexpr bool value = true;
};
template <>
struct is_number<double> {
  static constexpr bool value = true;
};

template <bool Condition, class T = double>
struct only_if {};
template <class T>
struct only_if<true, T> {
  typedef T type;
};

// One integer argument; two or three numbers of which at least one is an integer.
template <class T>
struct integer_call : only_if<is_integer<T>::value> {};
template <class A, class B>
struct mixed_call
    : only_if<is_number<A>::value && is_number<B>::value &&
              (is_integer<A>::value || is_integer<B>::value)> {};
template <class A, class B, class C>
struct mixed_call3 : only_if<is_number<A>::value && is_number<B>::value && is_number<C>::value &&
                             (is_integer<A>::value || is_integer<B>::value ||
                              is_integer<C>::value)> {};
}  // namespace __numbast

#define __NUMBAST_MATH1(name)                                                          \
  template <class T>                                                                   \
  __host__ __device__ inline typename __numbast::integer_call<T>::type name(T x) {     \
    return ::name(static_cast<double>(x));                                             \
  }
#define __NUMBAST_MATH1_TO(result, name)                                               \
  template <class T>                                                                   \
  __host__ __device__ inline typename __numbast::only_if<__numbast::is_integer<T>::value, \
                                                         result>::type                 \
  name(T x) {                                                                          \
    return ::name(static_cast<double>(x));                                             \
  }
#define __NUMBAST_MATH2(name)                                                          \
  template <class A, class B>                                                          \
  __host__ __device__ inline typename __numbast::mixed_call<A, B>::type name(A x, B y) { \
    return ::name(static_cast<double>(x), static_cast<double>(y));                     \
  }

__NUMBAST_MATH1(acos)
__NUMBAST_MATH1(acosh)
__NUMBAST_MATH1(asin)
__NUMBAST_MATH1(asinh)
__NUMBAST_MATH1(atan)
__NUMBAST_MATH1(atanh)
__NUMBAST_MATH1(cbrt)
__NUMBAST_MATH1(ceil)
__NUMBAST_MATH1(cos)
__NUMBAST_MATH1(cosh)
__NUMBAST_MATH1(erf)
__NUMBAST_MATH1(erfc)
__NUMBAST_MATH1(exp)
__NUMBAST_MATH1(exp2)
__NUMBAST_MATH1(expm1)
__NUMBAST_MATH1(fabs)
__NUMBAST_MATH1(floor)
__NUMBAST_MATH1(lgamma)
__NUMBAST_MATH1(log)
__NUMBAST_MATH1(log10)
__NUMBAST_MATH1(log1p)
__NUMBAST_MATH1(log2)
__NUMBAST_MATH1(logb)
__NUMBAST_MATH1(nearbyint)
__NUMBAST_MATH1(rint)
__NUMBAST_MATH1(round)
__NUMBAST_MATH1(sin)
__NUMBAST_MATH1(sinh)
__NUMBAST_MATH1(sqrt)
__NUMBAST_MATH1(tan)
__NUMBAST_MATH1(tanh)
__NUMBAST_MATH1(tgamma)
__NUMBAST_MATH1(trunc)
__NUMBAST_MATH1_TO(int, ilogb)
__NUMBAST_MATH1_TO(long, lrint)
__NUMBAST_MATH1_TO(long, lround)
__NUMBAST_MATH1_TO(long long, llrint)
__NUMBAST_MATH1_TO(long long, llround)
__NUMBAST_MATH2(atan2)
__NUMBAST_MATH2(copysign)
__NUMBAST_MATH2(fdim)
__NUMBAST_MATH2(fmax)
__NUMBAST_MATH2(fmin)
__NUMBAST_MATH2(fmod)
__NUMBAST_MATH2(hypot)
__NUMBAST_MATH2(nextafter)
__NUMBAST_MATH2(pow)
__NUMBAST_MATH2(remainder)

template <class A, class B, class C>
__host__ __device__ inline typename __numbast::mixed_call3<A, B, C>::type fma(A x, B y, C z) {
  return ::fma(static_cast<double>(x), static_cast<double>(y), static_cast<double>(z));
}

#undef __NUMBAST_MATH1
#undef __NUMBAST_MATH1_TO
#undef __NUMBAST_MATH2

// Classification and comparison, for float and double (C's macros, C++'s functions).
#define __NUMBAST_CLASSIFY(type, min_normal)                                              \
  __host__ __device__ inline int fpclassify(type x) {                                     \
    if (isnan(x)) return FP_NAN;                                                          \
    if (isinf(x)) return FP_INFINITE;                                                     \
    if (x == type(0)) return FP_ZERO;                                                     \
    return fabs(x) < min_normal ? FP_SUBNORMAL : FP_NORMAL;                               \
  }                                                                                       \
  __host__ __device__ inline bool isnormal(type x) { return fpclassify(x) == FP_NORMAL; } \
  __host__ __device__ inline bool isunordered(type x, type y) {                           \
    return isnan(x) || isnan(y);                                                          \
  }                                                                                       \
  __host__ __device__ inline bool isgreater(type x, type y) {                             \
    return !isunordered(x, y) && x > y;                                                   \
  }                                                                                       \
  __host__ __device__ inline bool isgreaterequal(type x, type y) {                        \
    return !isunordered(x, y) && x >= y;                                                  \
  }                                                                                       \
  __host__ __device__ inline bool isless(type x, type y) {                                \
    return !isunordered(x, y) && x < y;                                                   \
  }                                                                                       \
  __host__ __device__ inline bool islessequal(type x, type y) {                           \
    return !isunordered(x, y) && x <= y;                                                  \
  }                                                                                       \
  __host__ __device__ inline bool islessgreater(type x, type y) {                         \
    return !isunordered(x, y) && x != y;                                                  \
  }

__NUMBAST_CLASSIFY(float, 0x1p-126f)
__NUMBAST_CLASSIFY(double, 0x1p-1022)
#undef __NUMBAST_CLASSIFY

#endif
