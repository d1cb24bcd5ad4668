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

// With an iterator whose value type is the default (CUB's BlockLoadType<Policy, It, T =
// it_value_t<It>>): a policy and a pointer.
template <class It>
struct value_of {};
template <class T>
struct value_of<T *> {
  using type = T;
};

template <class Policy, class It, class T = typename value_of<It>::type>
struct LoaderAt {
  using type = Loader<T, Policy::THREADS>;
};

// Names a member no class of the module has: not bound, with that reason.
template <class Policy, class T>
struct WideLoaderFor {
  using type = Loader<T, Policy::LANES>;
};

}  // namespace pt
