// Binary math functors (elementwise_functors.h): logaddexp, copysign, fmax/fmin, hypot,
// nextafter, heaviside, gcd/lcm, the bit shifts, xlogy/xlog1py, with stock's CUDA
// semantics (NaN and infinity cases, shift counts out of range).
#pragma once

#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

// log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
template <typename T>
struct Logaddexp {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Logaddexp make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if (std::isinf(a) && a == b) return a;
    const M m = a < b ? b : a;
    return m + std::log1p(std::exp(-std::fabs(a - b)));
  }
};

// log2(2^a + 2^b).
template <typename T>
struct Logaddexp2 {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Logaddexp2 make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if (std::isinf(a) && a == b) return a;
    const M m = a < b ? b : a;
    return m + std::log1p(std::exp2(-std::fabs(a - b))) * M(1.0 / M_LN2);
  }
};

template <typename T>
struct Copysign {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Copysign make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const { return std::copysign(a, b); }
};

// fmax / fmin: a NaN operand loses to a number (unlike maximum / minimum).
template <typename T>
struct Fmax {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static Fmax make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (std::is_floating_point_v<M>) return std::fmax(a, b);
    else return a < b ? b : a;
  }
};

template <typename T>
struct Fmin {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static Fmin make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (std::is_floating_point_v<M>) return std::fmin(a, b);
    else return b < a ? b : a;
  }
};

// On the host, glibc 2.35 gave hypot a new symbol version, which would raise the wheel's
// manylinux tag past 2.34: the host squares in long double, whose exponent range holds
// the square of any double, so nothing overflows and sqrtl is an old symbol.
template <typename T>
struct Hypot {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Hypot make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
#ifdef __CUDA_ARCH__
    return std::hypot(a, b);
#else
    if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<M>::infinity();
    const long double wide_a = a;
    const long double wide_b = b;
    return static_cast<M>(std::sqrt(wide_a * wide_a + wide_b * wide_b));
#endif
  }
};

// The engine computes Half and BFloat16 in float, where the next float is not the next
// Half: nextafter runs for float and double only.
template <typename T>
struct Nextafter {
  static constexpr bool supported = std::is_floating_point_v<T>;
  static Nextafter make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return std::nextafter(a, b); }
};

// heaviside: b where a is 0, else a > 0.
template <typename T>
struct Heaviside {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static Heaviside make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const { return a == M(0) ? b : static_cast<M>(a > M(0)); }
};

namespace detail {
template <typename T>
TORCH_CORE_HOST_DEVICE T gcd(T a, T b) {
  a = a < 0 ? static_cast<T>(-a) : a;
  b = b < 0 ? static_cast<T>(-b) : b;
  while (b != 0) {
    const T rest = a % b;
    a = b;
    b = rest;
  }
  return a;
}
}  // namespace detail

template <typename T>
struct Gcd {
  static constexpr bool supported = kIsInteger<T>;
  static Gcd make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return detail::gcd(a, b); }
};

template <typename T>
struct Lcm {
  static constexpr bool supported = kIsInteger<T>;
  static Lcm make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const {
    const T g = detail::gcd(a, b);
    if (g == 0) return 0;
    const T product = static_cast<T>(a / g * b);
    return product < 0 ? static_cast<T>(-product) : product;
  }
};

// Shifts by a negative count or by the width or more: 0 to the left, the sign fill to the
// right. Narrow integers compute in int64, which gives the same bits after the store.
template <typename T>
struct LeftShift {
  static constexpr bool supported = kIsInteger<T>;
  static LeftShift make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const {
    constexpr T width = sizeof(T) * CHAR_BIT;
    if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= width) return 0;
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b);
  }
};

template <typename T>
struct RightShift {
  static constexpr bool supported = kIsInteger<T>;
  static RightShift make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const {
    constexpr T max_shift = sizeof(T) * CHAR_BIT - std::is_signed_v<T>;
    if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= max_shift) return static_cast<T>(a >> max_shift);
    return static_cast<T>(a >> b);
  }
};

// x * log(y) and x * log1p(y), 0 where x is 0 (unless y is NaN).
template <typename T>
struct Xlogy {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Xlogy make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M y) const {
    if (y != y) return y;
    return x == M(0) ? M(0) : x * std::log(y);
  }
};

template <typename T>
struct Xlog1py {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Xlog1py make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M y) const {
    if (y != y) return y;
    return x == M(0) ? M(0) : x * std::log1p(y);
  }
};

}  // namespace torch_core::engine
