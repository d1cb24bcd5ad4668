// Declarations that cannot be bound next to one that can: the module must still import.
#pragma once

__device__ inline int takes_callback(int (*f)(int)) { return f(1); }
__device__ inline int sum_all(int n, ...) { return n; }
__host__ inline int host_only(int x) { return x; }
__device__ inline int bindable(int x) { return x + 1; }
