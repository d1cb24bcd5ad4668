// Type aliases: typedef and using, of builtins, pointers, records and arrays.
#pragma once

typedef float real_t;
using index_t = unsigned int;
typedef const real_t *real_ptr;

struct Pair {
    int a, b;
};
typedef Pair pair_t;
using pair_ref = const Pair &;
typedef int triple_t[3];

typedef struct {
    short lo, hi;
} halves_t;

namespace ns {
using real = real_t;
}
