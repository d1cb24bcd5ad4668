// A type nobody binds (only value_defaults.cuh is bound): a template's default and an
// explicit argument may still name it, as CUB's NullType.
#pragma once

namespace vd {
struct Nothing {};

template <class T> struct is_nothing {
  static constexpr bool value = false;
};
template <> struct is_nothing<Nothing> {
  static constexpr bool value = true;
};
}  // namespace vd
