// The scalar-type vocabulary of the engine's functors (elementwise_functors.h lists them):
// type categories, the opmath type Half and BFloat16 compute in, a NaN test for any
// type, and TORCH_CORE_UNARY_FUNCTOR for the one-line unary functors.
#pragma once

#include <type_traits>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/complex.h>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/host_device.h"

namespace torch_core::engine {

template <typename T>
struct is_complex : std::false_type {};
template <typename T>
struct is_complex<c10::complex<T>> : std::true_type {};

template <typename T>
constexpr bool kIsComplex = is_complex<T>::value;
template <typename T>
constexpr bool kIsReducedFloat = std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;
template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsReducedFloat<T>;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
constexpr bool kIsReal = kIsFloating<T> || kIsInteger<T>;  // ordered numbers, no bool

// The type a functor computes in: float for Half and BFloat16, T otherwise.
template <typename T>
using opmath_t = std::conditional_t<kIsReducedFloat<T>, float, T>;

namespace detail {
template <typename T>
TORCH_CORE_HOST_DEVICE bool isnan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}
}  // namespace detail

// A functor of one floating (and, with allow_complex, complex) argument: `expr` of x, an
// opmath value M.
#define TORCH_CORE_UNARY_FUNCTOR(Name, allow_complex, expr)                           \
  template <typename T>                                                               \
  struct Name {                                                                       \
    using M = opmath_t<T>;                                                            \
    static constexpr bool supported = kIsFloating<T> || ((allow_complex) && kIsComplex<T>); \
    static Name make(const ElementwiseCall&) { return {}; }                           \
    TORCH_CORE_HOST_DEVICE M operator()(M x) const { return expr; }                   \
  };

}  // namespace torch_core::engine
