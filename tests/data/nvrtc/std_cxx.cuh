// One device function per C++ standard header, as CUDA code written for nvcc includes them:
// NVRTC finds numbast's stand-ins for them, clang the host's.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

__device__ std::int64_t widened_product(std::int32_t a, std::int32_t b) {
  return static_cast<std::int64_t>(a) * b;
}
__device__ std::size_t bytes_of_doubles(std::size_t n) { return n * sizeof(double); }
__device__ int cxx_below_int_max(int x) { return INT_MAX - x; }
__device__ double double_epsilon() { return DBL_EPSILON; }
__device__ float cxx_hypot(float a, float b) { return std::sqrt(a * a + b * b); }
__device__ int cxx_printed(int x) {
  std::printf("cxx_printed(%d)\n", x);
  return x;
}
__device__ int cxx_checked(int x) {
  assert(x < 1000);
  return x;
}
__device__ int magnitude(int x) { return std::abs(x); }
__device__ int compare_words() { return std::strcmp("apple", "banana") < 0 ? -1 : 1; }
__device__ float clamp_unit(float x) { return std::min(std::max(x, 0.0f), 1.0f); }
__device__ int sum_of_three(int a, int b, int c) {
  std::array<int, 3> values = {a, b, c};
  return std::accumulate(values.begin(), values.end(), 0);
}
__device__ int ones_in(unsigned int x) { return std::popcount(x); }
__device__ int plus_of(int a, int b) { return std::plus<int>()(a, b); }
__device__ int list_sum(int a, int b) {
  int total = 0;
  for (int value : {a, b}) total += value;
  return total;
}
__device__ int span_length(int n) {
  std::array<int, 8> values{};
  return static_cast<int>(std::distance(values.begin(), values.begin() + n));
}
__device__ float largest_float() { return std::numeric_limits<float>::max(); }
__device__ int through_address(int x) { return *std::addressof(x); }
__device__ int placed(int x) {
  alignas(int) unsigned char storage[sizeof(int)];
  int* made = new (storage) int(x);
  return *made;
}
__device__ int value_or(int x, bool present) {
  std::optional<int> maybe;
  if (present) maybe = x;
  return maybe.value_or(-1);
}
__device__ double tuple_sum(int a, double b) {
  std::tuple<int, double> both = std::make_tuple(a, b);
  return std::get<0>(both) + std::get<1>(both);
}
__device__ bool size_t_is_unsigned() { return std::is_unsigned<std::size_t>::value; }
__device__ int swapped_first(int a, int b) {
  std::swap(a, b);
  return a;
}
