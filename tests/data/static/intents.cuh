// Reference parameters for Function Argument Intents.
#pragma once

__device__ inline int divmod(int a, int b, int &remainder) {
  remainder = a % b;
  return a / b;
}

__device__ inline void accumulate(float &total, float x) { total += x; }
