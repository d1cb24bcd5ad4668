// A complex-number class template as CUTLASS writes cutlass::complex: its arithmetic operators
// are member templates over the other operand's element type, and real()/imag() are free
// function templates beside plain overloads for scalars.
#pragma once

namespace numlib {

template <typename T>
class Cx {
    T re_, im_;

  public:
    __device__ Cx(T r = T(0), T i = T(0)) : re_(r), im_(i) {}
    __device__ T const &real() const { return re_; }
    __device__ T const &imag() const { return im_; }

    template <typename A>
    __device__ Cx<T> operator+(Cx<A> const &rhs) const {
        return Cx<T>(re_ + T(rhs.real()), im_ + T(rhs.imag()));
    }
    template <typename A>
    __device__ Cx<T> operator*(Cx<A> const &rhs) const {
        return Cx<T>(re_ * T(rhs.real()) - im_ * T(rhs.imag()),
                     re_ * T(rhs.imag()) + im_ * T(rhs.real()));
    }
    template <typename A>
    __device__ Cx<T> operator*(A const &s) const {
        return Cx<T>(re_ * T(s), im_ * T(s));
    }
    template <typename A>
    __device__ Cx<T> &operator+=(Cx<A> const &rhs) {
        *this = *this + rhs;
        return *this;
    }
};

template <typename T>
__device__ T const &real(Cx<T> const &z) { return z.real(); }
template <typename T>
__device__ T const &imag(Cx<T> const &z) { return z.imag(); }
__device__ inline float const &real(float const &x) { return x; }

}  // namespace numlib

// The module's instance, as CUTLASS's users name cutlass::complex<float>.
typedef numlib::Cx<float> CxFloat;
// A function of the header takes the instance by value, so clang instantiates it (as CUTLASS's
// own functions instantiate complex<float>): the module binds it as a struct of its own.
__device__ inline float norm2(CxFloat z) { return z.real() * z.real() + z.imag() * z.imag(); }
