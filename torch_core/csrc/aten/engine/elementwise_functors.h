// The functors of the elementwise operations (elementwise_call.h), written once for the
// host engine and the CUDA engine (TORCH_CORE_HOST_DEVICE). Each is a template over the
// compute dtype T with:
//   supported     whether stock CUDA torch has the operation for T (otherwise the stub
//                 raises "<op>_cuda" not implemented for '<dtype>', as AT_DISPATCH does)
//   make(call)    the functor with its scalar arguments (host side)
//   operator()    element values in, one value out; Half and BFloat16 compute in float
//                 (opmath), as stock's CUDA kernels do. The engines cast each operand
//                 from its own dtype on load and the result to the output's on store.
// Semantics follow stock's CUDA kernels (NaN propagation of max/min/clamp, floor
// division and remainder signs, integer powers); integer division by zero and
// INT_MIN / -1 give a value instead of trapping the host.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/complex.h>
#include <c10/util/generic_math.h>

#include "torch_core/aten/engine/elementwise_call.h"
#include "torch_core/aten/host_device.h"

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

// --- unary, floating and complex -----------------------------------------------------
#define TORCH_CORE_UNARY(Name, allow_complex, expr)                                   \
  template <typename T>                                                               \
  struct Name {                                                                       \
    using M = opmath_t<T>;                                                            \
    static constexpr bool supported = kIsFloating<T> || ((allow_complex) && kIsComplex<T>); \
    static Name make(const ElementwiseCall&) { return {}; }                           \
    TORCH_CORE_HOST_DEVICE M operator()(M x) const { return expr; }                   \
  };

TORCH_CORE_UNARY(Sin, true, std::sin(x))
TORCH_CORE_UNARY(Cos, true, std::cos(x))
TORCH_CORE_UNARY(Tan, true, std::tan(x))
TORCH_CORE_UNARY(Asin, true, std::asin(x))
TORCH_CORE_UNARY(Acos, true, std::acos(x))
TORCH_CORE_UNARY(Atan, true, std::atan(x))
TORCH_CORE_UNARY(Sinh, true, std::sinh(x))
TORCH_CORE_UNARY(Cosh, true, std::cosh(x))
TORCH_CORE_UNARY(Tanh, true, std::tanh(x))
TORCH_CORE_UNARY(Asinh, true, std::asinh(x))
TORCH_CORE_UNARY(Acosh, true, std::acosh(x))
TORCH_CORE_UNARY(Atanh, true, std::atanh(x))
TORCH_CORE_UNARY(Exp, true, std::exp(x))
TORCH_CORE_UNARY(Exp2, false, std::exp2(x))
TORCH_CORE_UNARY(Expm1, false, std::expm1(x))
TORCH_CORE_UNARY(Log, true, std::log(x))
TORCH_CORE_UNARY(Log10, true, std::log10(x))
TORCH_CORE_UNARY(Log1p, false, std::log1p(x))
TORCH_CORE_UNARY(Log2, false, std::log2(x))
TORCH_CORE_UNARY(Sqrt, true, std::sqrt(x))
TORCH_CORE_UNARY(Rsqrt, true, M(1) / std::sqrt(x))
TORCH_CORE_UNARY(Sigmoid, true, M(1) / (M(1) + std::exp(-x)))
TORCH_CORE_UNARY(Erf, false, std::erf(x))
TORCH_CORE_UNARY(Erfc, false, std::erfc(x))
TORCH_CORE_UNARY(Reciprocal, true, M(1) / x)
TORCH_CORE_UNARY(Ceil, false, std::ceil(x))
TORCH_CORE_UNARY(Floor, false, std::floor(x))
TORCH_CORE_UNARY(Round, false, std::nearbyint(x))
TORCH_CORE_UNARY(Trunc, false, std::trunc(x))
TORCH_CORE_UNARY(Frac, false, x - std::trunc(x))
TORCH_CORE_UNARY(Lgamma, false, std::lgamma(x))
TORCH_CORE_UNARY(Silu, false, x / (M(1) + std::exp(-x)))
TORCH_CORE_UNARY(GeluNone, false, x * M(0.5) * (M(1) + std::erf(x * M(M_SQRT1_2))))
TORCH_CORE_UNARY(GeluTanh, false,
                 M(0.5) * x * (M(1) + std::tanh(M(M_SQRT2 * M_2_SQRTPI * 0.5) * (x + M(0.044715) * x * x * x))))
#undef TORCH_CORE_UNARY

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

// --- activations, their backwards (grad first), threshold ------------------------------
template <typename T>
struct SiluBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static SiluBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M s = M(1) / (M(1) + std::exp(-x));
    return dy * s * (M(1) + x * (M(1) - s));
  }
};

template <typename T>
struct GeluBackwardNone {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static GeluBackwardNone make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M cdf = M(0.5) * (M(1) + std::erf(x * M(M_SQRT1_2)));
    const M pdf = std::exp(M(-0.5) * x * x) * M(M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return dy * (cdf + x * pdf);
  }
};

template <typename T>
struct GeluBackwardTanh {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static GeluBackwardTanh make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M beta = M(M_SQRT2 * M_2_SQRTPI * 0.5);
    const M kappa = M(0.044715);
    const M inner = beta * (x + kappa * x * x * x);
    const M t = std::tanh(inner);
    const M left = M(0.5) * x;
    const M right = M(1) + t;
    const M left_derivative = M(0.5) * right;
    const M right_derivative = left * (M(1) - t * t) * beta * (M(1) + M(3) * kappa * x * x);
    return dy * (left_derivative + right_derivative);
  }
};

// threshold_stub's iterator is (out, self, other): self <= threshold ? value : other.
template <typename T>
struct Threshold {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  M threshold, value;
  static Threshold make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M other) const { return x <= threshold ? value : other; }
};

template <typename T>
struct LeakyRelu {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M negval;
  static LeakyRelu make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const { return x > M(0) ? x : x * negval; }
};

// leaky_relu_backward_stub's iterator is (grad_input, self, grad_output).
template <typename T>
struct LeakyReluBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M negval;
  static LeakyReluBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M dy) const { return x > M(0) ? dy : dy * negval; }
};

template <typename T>
struct SigmoidBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static SigmoidBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M y) const { return dy * (M(1) - y) * y; }
};

template <typename T>
struct TanhBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static TanhBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M y) const { return dy * (M(1) - y * y); }
};

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

// --- clamp family (NaN in the value or a bound propagates), where, pointwise -----------
template <typename T>
struct Clamp {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  M lo, hi;
  static Clamp make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M v) const {
    if (detail::isnan(v)) return v;
    const M low = v < lo ? lo : v;
    return hi < low ? hi : low;
  }
};

template <typename T>
struct ClampMin {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  M lo;
  static ClampMin make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M v) const {
    if (detail::isnan(v)) return v;
    return v < lo ? lo : v;
  }
};

template <typename T>
struct ClampMax {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  M hi;
  static ClampMax make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M v) const {
    if (detail::isnan(v)) return v;
    return hi < v ? hi : v;
  }
};

// clamp(self, min tensor, max tensor): the iterator is (out, self, min, max).
template <typename T>
struct ClampTensor {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsReal<T>;
  static ClampTensor make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M v, M lo, M hi) const {
    if (detail::isnan(v)) return v;
    if (detail::isnan(lo)) return lo;
    if (detail::isnan(hi)) return hi;
    const M low = v < lo ? lo : v;
    return hi < low ? hi : low;
  }
};

// where: the iterator is (out, condition, self, other); the compute dtype is out's.
template <typename T>
struct Where {
  static constexpr bool supported = true;
  static Where make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE T operator()(bool c, T a, T b) const { return c ? a : b; }
};

template <typename T>
struct Addcmul {
  using M = opmath_t<T>;
  static constexpr bool supported = !std::is_same_v<T, bool>;
  M value;
  static Addcmul make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M self, M t1, M t2) const { return static_cast<M>(self + value * t1 * t2); }
};

template <typename T>
struct Addcdiv {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  M value;
  static Addcdiv make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M self, M t1, M t2) const { return self + value * t1 / t2; }
};

namespace detail {
// Stock's lerp: the two formulas meet at weight 0.5, for accuracy at both ends.
template <typename M>
TORCH_CORE_HOST_DEVICE M lerp(M self, M end, M weight) {
  using std::abs;
  return abs(weight) < 0.5 ? self + weight * (end - self) : end - (end - self) * (M(1) - weight);
}
}  // namespace detail

template <typename T>
struct LerpScalar {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  M weight;
  static LerpScalar make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M self, M end) const { return detail::lerp(self, end, weight); }
};

template <typename T>
struct LerpTensor {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  static LerpTensor make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M self, M end, M weight) const { return detail::lerp(self, end, weight); }
};

}  // namespace torch_core::engine
