// Not retained by the mapping: the primary template of explicit specializations that
// cutlass_patterns.cuh writes (CUTLASS's from_real in real.h, specialized in complex.h).
#pragma once

namespace cp {

template <class T>
__device__ T from_value(double x) {
  return T(x);
}

}  // namespace cp
