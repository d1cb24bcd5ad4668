// Included by includes_main.cuh.
#pragma once

struct Second {
    int v;
};

__device__ int read_second(Second s);
