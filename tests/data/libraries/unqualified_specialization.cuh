// Explicit specializations written inside their (inline) namespace with unqualified arguments,
// as CCCL 3.0 (CUDA 13.0) writes `template <> struct __is_identity<__identity> : true_type {};`:
// clang spells the record `lib::traits<Tag>`, which names nothing outside `lib`. The shims and
// the template probes must spell it `lib::traits<lib::Tag>`.
#pragma once

namespace lib {
inline namespace v1 {

struct Tag {
    int pad;
};

template <class T>
struct Ref {
    T *p;
};

template <class T>
struct traits;  // declared only: the specializations define it

template <>
struct traits<Tag> {
    __device__ static int code() { return 7; }
};

template <>
struct traits<Ref<Tag>> {
    __device__ static int code() { return 9; }
};

template <class T, int N>
struct Box {
    T items[N];
    __device__ T first() const { return items[0]; }
};

}  // namespace v1
}  // namespace lib
