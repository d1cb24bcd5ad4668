// Two syntax errors: clang reports both, and so must ParseError.
#pragma once

__device__ int fine(int x);

__device__ int broken(int x  // missing closing parenthesis
;

struct Good {
    int a;
};

__device__ undeclared_type bad_return();
