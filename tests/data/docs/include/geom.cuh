// docs/import_system.md's table-form mapping (geometry = { header = "include/geom.cuh", ... }).
#pragma once
#include "geom_ops.cuh"

__device__ inline float geom_internal(float x) { return x; }  // exclude-functions
