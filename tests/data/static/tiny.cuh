// A tiny header for the static-binding config tests: the config layer only needs files that
// exist; it does not parse them.
#pragma once
#include "tiny_ops.hpp"

struct tiny_pair {
  int first;
  int second;
};

__device__ int tiny_sum(tiny_pair p) { return tiny_ops_add(p.first, p.second); }
