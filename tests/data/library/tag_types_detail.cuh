// Declared in a file the import does not retain (tag_types.cuh is mapped alone): an empty tag
// class, as CUB's NullType in util_type.cuh, a class template whose instance's method returns
// it, and a class with a field.
#pragma once

namespace tg {
struct Empty {};

template <class T>
struct Slot {
  T storage;
  __device__ T &get() { return storage; }
};

struct Heavy {
  int x;
};
}  // namespace tg
