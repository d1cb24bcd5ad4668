// docs/rtc.md's kernel of an imported header: kern.saxpy(...) launches it from the host.
#pragma once

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
