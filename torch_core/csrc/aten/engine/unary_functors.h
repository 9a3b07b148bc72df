// Unary functors (elementwise_functors.h): floating/complex math, and the all-types
// ones (abs, neg, sign, logical/bitwise not, isneginf/isposinf, conj, signbit, ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

// --- unary, floating and complex -----------------------------------------------------
TORCH_CORE_UNARY_FUNCTOR(Sin, true, std::sin(x))
TORCH_CORE_UNARY_FUNCTOR(Cos, true, std::cos(x))
TORCH_CORE_UNARY_FUNCTOR(Tan, true, std::tan(x))
TORCH_CORE_UNARY_FUNCTOR(Asin, true, std::asin(x))
TORCH_CORE_UNARY_FUNCTOR(Acos, true, std::acos(x))
TORCH_CORE_UNARY_FUNCTOR(Atan, true, std::atan(x))
TORCH_CORE_UNARY_FUNCTOR(Sinh, true, std::sinh(x))
TORCH_CORE_UNARY_FUNCTOR(Cosh, true, std::cosh(x))
TORCH_CORE_UNARY_FUNCTOR(Tanh, true, std::tanh(x))
TORCH_CORE_UNARY_FUNCTOR(Asinh, true, std::asinh(x))
TORCH_CORE_UNARY_FUNCTOR(Acosh, true, std::acosh(x))
TORCH_CORE_UNARY_FUNCTOR(Atanh, true, std::atanh(x))
TORCH_CORE_UNARY_FUNCTOR(Exp, true, std::exp(x))
TORCH_CORE_UNARY_FUNCTOR(Exp2, false, std::exp2(x))
TORCH_CORE_UNARY_FUNCTOR(Expm1, false, std::expm1(x))
TORCH_CORE_UNARY_FUNCTOR(Log, true, std::log(x))
TORCH_CORE_UNARY_FUNCTOR(Log10, true, std::log10(x))
TORCH_CORE_UNARY_FUNCTOR(Log1p, false, std::log1p(x))
TORCH_CORE_UNARY_FUNCTOR(Log2, false, std::log2(x))
TORCH_CORE_UNARY_FUNCTOR(Sqrt, true, std::sqrt(x))
TORCH_CORE_UNARY_FUNCTOR(Rsqrt, true, M(1) / std::sqrt(x))
TORCH_CORE_UNARY_FUNCTOR(Sigmoid, true, M(1) / (M(1) + std::exp(-x)))
TORCH_CORE_UNARY_FUNCTOR(Erf, false, std::erf(x))
TORCH_CORE_UNARY_FUNCTOR(Erfc, false, std::erfc(x))
TORCH_CORE_UNARY_FUNCTOR(Reciprocal, true, M(1) / x)
TORCH_CORE_UNARY_FUNCTOR(Ceil, false, std::ceil(x))
TORCH_CORE_UNARY_FUNCTOR(Floor, false, std::floor(x))
TORCH_CORE_UNARY_FUNCTOR(Round, false, std::nearbyint(x))
TORCH_CORE_UNARY_FUNCTOR(Trunc, false, std::trunc(x))
TORCH_CORE_UNARY_FUNCTOR(Frac, false, x - std::trunc(x))
TORCH_CORE_UNARY_FUNCTOR(Lgamma, false, std::lgamma(x))

// --- unary, all types ----------------------------------------------------------------
template <typename T>
struct Abs {
  using M = opmath_t<T>;
  static constexpr bool supported = true;
  static Abs make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) return x;
    else if constexpr (kIsComplex<T>) return M(std::abs(x));
    else return x < M(0) ? M(-x) : x;
  }
};

template <typename T>
struct Neg {
  using M = opmath_t<T>;
  static constexpr bool supported = !std::is_same_v<T, bool>;
  static Neg make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const { return static_cast<M>(-x); }
};

template <typename T>
struct Sign {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static Sign make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if constexpr (std::is_same_v<T, bool>) return x;
    else return static_cast<M>((M(0) < x) - (x < M(0)));
  }
};

template <typename T>
struct LogicalNot {
  static constexpr bool supported = true;
  static LogicalNot make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool operator()(T x) const { return !static_cast<bool>(x); }
};

template <typename T>
struct BitwiseNot {
  static constexpr bool supported = std::is_integral_v<T>;
  static BitwiseNot make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else return static_cast<T>(~x);
  }
};

// isneginf / isposinf: false for integers and bool.
template <typename T>
struct IsNegInf {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static IsNegInf make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool operator()(M x) const {
    if constexpr (std::numeric_limits<M>::has_infinity) return x == -std::numeric_limits<M>::infinity();
    else return false;
  }
};

template <typename T>
struct IsPosInf {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static IsPosInf make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool operator()(M x) const {
    if constexpr (std::numeric_limits<M>::has_infinity) return x == std::numeric_limits<M>::infinity();
    else return false;
  }
};

// A copy through the engine's casting (flip's kernel: the iterator's negative strides do
// the flipping).
template <typename T>
struct Identity {
  static constexpr bool supported = true;
  static Identity make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T x) const { return x; }
};

// conj_physical: the complex conjugate; a copy for every other dtype.
template <typename T>
struct Conj {
  static constexpr bool supported = true;
  static Conj make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T x) const {
    if constexpr (kIsComplex<T>) return T(x.real(), -x.imag());
    else return x;
  }
};

// sgn of a complex number: z / |z|, 0 at 0 (real dtypes run sign instead).
template <typename T>
struct Sgn {
  static constexpr bool supported = kIsComplex<T>;
  static Sgn make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(T z) const {
    if constexpr (kIsComplex<T>) {
      const auto magnitude = std::abs(z);
      return magnitude == 0 ? T(0) : z / magnitude;
    } else {
      return z;
    }
  }
};

// round(x, decimals): x scaled by 10^decimals, rounded half to even, scaled back (by
// 10^-decimals first for negative decimals), as stock's kernel computes it.
template <typename T>
struct RoundDecimals {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M scale;
  bool negative;
  static RoundDecimals make(const ElementwiseCall& c) {
    const int64_t decimals = c.arg0.to<int64_t>();
    const bool negative = decimals < 0;
    return {static_cast<M>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals))), negative};
  }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
  }
};

// signbit: the sign bit of a float (true for -0.0 and negative NaN), x < 0 for integers.
template <typename T>
struct Signbit {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static Signbit make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool operator()(M x) const {
    if constexpr (std::is_floating_point_v<M>) return std::signbit(x);
    else if constexpr (std::is_signed_v<M>) return x < 0;
    else return false;
  }
};

// nan_to_num: NaN, +inf and -inf replaced by the call's three values (the stub fills in
// the dtype's defaults: 0, its largest and its lowest finite value).
template <typename T>
struct NanToNum {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M nan, posinf, neginf;
  static NanToNum make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>(), c.arg2.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (x != x) return nan;
    if (x == std::numeric_limits<M>::infinity()) return posinf;
    if (x == -std::numeric_limits<M>::infinity()) return neginf;
    return x;
  }
};

}  // namespace torch_core::engine
