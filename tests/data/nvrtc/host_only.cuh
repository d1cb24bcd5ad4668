// A header written for nvcc and plain C++ alike: no execution spaces (NVRTC needs
// -default-device), stream output and error types for host code (numbast's stand-ins declare
// them for NVRTC), device-callable arithmetic.
#pragma once
#include <exception>
#include <iosfwd>
#include <iostream>
#include <istream>
#include <ostream>
#include <stdexcept>

struct Meters {
  float value;
};

inline Meters add(Meters a, Meters b) { return Meters{a.value + b.value}; }
inline float as_float(Meters m) { return m.value; }
inline int checked_index(int i, int n) {
  if (i < 0 || i >= n) {
    std::out_of_range error("index out of range");
    return error.what() != nullptr ? -1 : -2;
  }
  return i;
}

// A kernel of the header: compiled with the header's NVRTC options too.
__global__ void scale_all(Meters* meters, float by) { meters[threadIdx.x].value *= by; }

inline std::ostream& operator<<(std::ostream& stream, const Meters& m) {
  return stream << m.value << " m" << std::endl;
}
inline std::istream& operator>>(std::istream& stream, Meters& m) { return stream >> m.value; }
