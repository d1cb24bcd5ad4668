// Namespaces: nested, inline, anonymous, extern "C".
#pragma once

namespace outer {
__device__ int top(int x);
namespace inner {
struct Thing {
    int v;
};
__device__ int deep(Thing t);
}  // namespace inner
inline namespace v2 {
__device__ int versioned();
}
}  // namespace outer

namespace {
__device__ int hidden_helper();
}

extern "C" {
__device__ int c_linkage(int x);
}
