// A class whose inline member is declared and never defined (cooperative groups' thread_group::
// num_threads under NVRTC): an instance of a template whose body calls it is rejected with
// "referenced but not defined" at the member's declaration, a line that names no probe.
#pragma once

namespace um {
struct Group {
  __forceinline__ __device__ unsigned size() const;
};
struct Block {
  __forceinline__ __device__ unsigned size() const { return 32; }
};
template <class G> __device__ unsigned group_size(const G &g) { return g.size(); }
template <class G> __device__ unsigned first_rank(const G &) { return 0; }
template <class G> __device__ unsigned half_size(const G &g) { return g.size() / 2; }
}  // namespace um
