// Parameter and return types: pointers, references, const, arrays, typedefs, rvalue refs.
#pragma once

typedef float *float_ptr;
struct Rec {
    int values[2][3];
};

__device__ void take_pointer(const float *p, float_ptr q);
__device__ void take_refs(Rec &r, const Rec &cr, Rec &&rr);
__device__ const Rec *give_pointer();
__device__ void take_array(int (&arr)[4]);
__device__ unsigned long long take_builtin(char c, bool b, double d);
__device__ int (*pick_op(int which))(int, int);
__device__ int apply(int (*op)(int, int), int a);
