// A type metafunction over a tuning policy (CUB's BlockLoadType<Policy, It>, whose only member
// is `using type = BlockLoad<T, Policy::BLOCK_THREADS, ...>`): with a policy class in the
// module it binds, and `LoaderFor[Policy, T].type` is the instance it chooses; with none that
// has the members it names, coverage says what the arguments lack.
#pragma once

namespace pt {

template <class T, int Threads>
struct Loader {
  T offset;
  __device__ explicit Loader(T o) : offset(o) {}
  __device__ T scaled(T x) const { return x * Threads + offset; }
};

// The module's policy: static members, as CUB's tuning policies have.
struct SmallPolicy {
  static constexpr int THREADS = 4;
};

template <class Policy, class T>
struct LoaderFor {
  using type = Loader<T, Policy::THREADS>;
};

// Names a member no class of the module has: not bound, with that reason.
template <class Policy, class T>
struct WideLoaderFor {
  using type = Loader<T, Policy::LANES>;
};

}  // namespace pt
