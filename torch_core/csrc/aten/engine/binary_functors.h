// Binary functors (elementwise_functors.h): arithmetic (floor division, remainder and
// integer powers as stock's; integer division never traps), bitwise, comparison and logic.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <c10/util/generic_math.h>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

// --- binary arithmetic -----------------------------------------------------------------
// add_stub serves add and sub (sub passes -alpha).
template <typename T>
struct Add {
  using M = opmath_t<T>;
  static constexpr bool supported = true;
  M alpha;
  static Add make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (std::is_same_v<T, bool>) return a || (alpha && b);
    else return static_cast<M>(a + alpha * b);
  }
};

template <typename T>
struct Mul {
  using M = opmath_t<T>;
  static constexpr bool supported = true;
  static Mul make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return static_cast<M>(a * b);
  }
};

template <typename T>
struct DivTrue {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  static DivTrue make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const { return a / b; }
};

namespace detail {
// a / b for integers without the host's traps: b == 0 gives 0 (the GPU gives garbage,
// CPU torch raises), INT_MIN / -1 wraps as two's complement.
template <typename T>
TORCH_CORE_HOST_DEVICE T int_div(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(0) - static_cast<std::make_unsigned_t<T>>(a));
  }
  return static_cast<T>(a / b);
}
template <typename T>
TORCH_CORE_HOST_DEVICE T int_mod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}
}  // namespace detail

template <typename T>
struct DivFloor {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static DivFloor make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (kIsInteger<T>) {
      const M q = detail::int_div(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (b != 0 && (a % b != 0) && ((a < 0) != (b < 0))) return static_cast<M>(q - 1);
      }
      return q;
    } else {
      return c10::div_floor_floating(a, b);
    }
  }
};

template <typename T>
struct DivTrunc {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static DivTrunc make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (kIsInteger<T>) return detail::int_div(a, b);
    else return std::trunc(a / b);
  }
};

template <typename T>
struct Remainder {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static Remainder make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (kIsInteger<T>) {
      M r = detail::int_mod(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<M>(r + b);
      }
      return r;
    } else {
      M mod = std::fmod(a, b);
      if (mod != M(0) && ((b < M(0)) != (mod < M(0)))) mod += b;
      return mod;
    }
  }
};

template <typename T>
struct Fmod {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static Fmod make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (kIsInteger<T>) return detail::int_mod(a, b);
    else return std::fmod(a, b);
  }
};

// maximum/minimum propagate NaN; bool is a logical or/and.
template <typename T>
struct Maximum {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static Maximum make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if (detail::isnan(a)) return a;
    if (detail::isnan(b)) return b;
    return a < b ? b : a;
  }
};

template <typename T>
struct Minimum {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static Minimum make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if (detail::isnan(a)) return a;
    if (detail::isnan(b)) return b;
    return b < a ? b : a;
  }
};

template <typename T>
struct Atan2 {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Atan2 make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const { return std::atan2(a, b); }
};

namespace detail {
// Integer powers as stock's: a negative exponent gives 1 for base 1, +-1 for base -1, 0
// otherwise (the operator has already refused negative integer exponents where it must).
template <typename T>
TORCH_CORE_HOST_DEVICE T powi(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp % 2 == 0) ? T(1) : T(-1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp / 2);
    base = static_cast<T>(base * base);
  }
  return result;
}
}  // namespace detail

template <typename T>
struct Pow {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || kIsComplex<T>;
  static Pow make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    if constexpr (kIsInteger<T>) return detail::powi(a, b);
    else return std::pow(a, b);
  }
};

// pow(tensor, scalar exponent): the iterator is (out, base).
template <typename T>
struct PowScalar {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || kIsComplex<T>;
  M exponent;
  static PowScalar make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a) const {
    if constexpr (kIsInteger<T>) return detail::powi(a, exponent);
    else return std::pow(a, exponent);
  }
};

#define TORCH_CORE_BITWISE(Name, op)                                           \
  template <typename T>                                                        \
  struct Name {                                                                \
    static constexpr bool supported = std::is_integral_v<T>;                   \
    static Name make(const ElementwiseCall&) { return {}; }                    \
    TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a op b); } \
  };
TORCH_CORE_BITWISE(BitwiseAnd, &)
TORCH_CORE_BITWISE(BitwiseOr, |)
TORCH_CORE_BITWISE(BitwiseXor, ^)
#undef TORCH_CORE_BITWISE

// --- comparison and logic (bool results) -------------------------------------------------
#define TORCH_CORE_COMPARE(Name, ordered, expr)                                \
  template <typename T>                                                        \
  struct Name {                                                                \
    using M = opmath_t<T>;                                                     \
    static constexpr bool supported = !(ordered) || !kIsComplex<T>;            \
    static Name make(const ElementwiseCall&) { return {}; }                    \
    TORCH_CORE_HOST_DEVICE bool operator()(M a, M b) const { return expr; }    \
  };
TORCH_CORE_COMPARE(Eq, false, a == b)
TORCH_CORE_COMPARE(Ne, false, a != b)
TORCH_CORE_COMPARE(Lt, true, a < b)
TORCH_CORE_COMPARE(Le, true, a <= b)
TORCH_CORE_COMPARE(Gt, true, a > b)
TORCH_CORE_COMPARE(Ge, true, a >= b)
TORCH_CORE_COMPARE(LogicalAnd, false, static_cast<bool>(a) && static_cast<bool>(b))
TORCH_CORE_COMPARE(LogicalOr, false, static_cast<bool>(a) || static_cast<bool>(b))
TORCH_CORE_COMPARE(LogicalXor, false, static_cast<bool>(a) != static_cast<bool>(b))
#undef TORCH_CORE_COMPARE

}  // namespace torch_core::engine
