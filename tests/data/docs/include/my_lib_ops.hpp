// my_lib's second file (File List: [include/my_lib.cuh, include/my_lib_ops.hpp]).
#pragma once

// Function Argument Intents: my_divmod: {remainder: out_return}
__device__ inline int my_divmod(int a, int b, int &remainder) {
  remainder = a % b;
  return a / b;
}
