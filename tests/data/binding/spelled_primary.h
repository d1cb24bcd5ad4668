// The primary templates of spelled_names.cuh, in a file its mappings do not retain: their
// instances are bound as structs named by their C++ spelling.
#pragma once

namespace ns {
template <class T> struct box;
template <class T, int N> struct tagged {
  T values[N];
};
}  // namespace ns
