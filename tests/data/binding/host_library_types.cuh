// A device library that also declares host-only helpers naming the host C++ standard library, as
// CUB declares `std::ostream& operator<<(std::ostream&, BlockScanAlgorithm)` for logging: clang
// sees them (it parses with the host's library), NVRTC does not (it has none). Only the device
// declarations may be bound; a shim naming std::basic_ostream would not compile.
#pragma once

namespace hl {
enum Color { RED = 1, GREEN = 2 };

struct Counter {
  int count;
  __device__ Counter() : count(0) {}
  __device__ int bump(int by) { return count += by; }
};

__device__ inline int weight(Color c) { return 10 * static_cast<int>(c); }
}  // namespace hl

#if !defined(__CUDACC_RTC__) && __has_include(<iosfwd>)
#include <iosfwd>
#include <string>
namespace hl {
inline std::ostream& operator<<(std::ostream& os, Color) { return os; }
// Callable on the device by its attributes, but its signature is the host library's.
__host__ __device__ inline int length_of(const std::string& text) { return 0; }
struct Named {  // holds a host library type: no layout device code can use
  std::string name;
  int id;
};
}  // namespace hl
#endif
