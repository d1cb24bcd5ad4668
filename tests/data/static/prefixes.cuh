// Names with a library prefix, for API Prefix Removal and Skip Prefix.
#pragma once

enum MYLIB_MODE { MYLIB_MODE_FAST = 1, MYLIB_MODE_EXACT = 2 };

struct mylib_box {
  int value;
};

__device__ inline int mylib_add(int a, int b) { return a + b; }
__device__ inline int mylib_mode_value(MYLIB_MODE m) { return static_cast<int>(m); }
__device__ inline int mylib_unbox(mylib_box b) { return b.value; }
__device__ inline int mylib_detail_helper(int a) { return a; }
