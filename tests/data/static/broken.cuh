// A header clang cannot parse: the generator must fail with one paragraph naming the problem.
#pragma once

__device__ inline int broken(int x) { return x + ; }
struct missing_semicolon { int a; }
