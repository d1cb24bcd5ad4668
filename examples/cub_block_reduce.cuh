// CUB's BlockReduce for examples/dask_kernels.py: mapped there with the CCCL header that
// declares it retained (CCCL comes with the CUDA wheels).
#pragma once
#include <cub/block/block_reduce.cuh>
