// Special-function functors (elementwise_functors.h): digamma, trigamma, polygamma,
// erfinv, entr, sinc, zeta, and the Bessel / Airy / normal-distribution functions of
// torch.special. Where ATen/native/Math.h has a host+device implementation (the one
// stock's CUDA kernels call), the functor calls it; digamma and trigamma, which Math.h
// has for the host only, are written here from their series.
#pragma once

#include <cmath>
#include <limits>

#include <ATen/native/Math.h>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

namespace detail {

// digamma(x): the reflection formula below 0, the recurrence psi(x) = psi(x + 1) - 1/x up
// to x >= 10, then the asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k).
template <typename M>
TORCH_CORE_HOST_DEVICE M digamma(M x) {
  const M pi = M(3.14159265358979323846);
  if (x == M(0)) return std::copysign(std::numeric_limits<M>::infinity(), -x);  // +-0 -> -+inf
  M result = 0;
  if (x < M(0)) {
    if (x == std::trunc(x)) return std::numeric_limits<M>::quiet_NaN();  // the poles
    // psi(x) = psi(1 - x) - pi / tan(pi x), tan through x's fractional part, which keeps
    // its argument small.
    result = -pi / std::tan(pi * (x - std::trunc(x)));
    x = M(1) - x;
  }
  while (x < M(10)) {
    result -= M(1) / x;
    x += M(1);
  }
  const M inverse_square = M(1) / (x * x);
  // B_2k / 2k for k = 1..7: 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12.
  const M series =
      inverse_square *
      (M(1.0 / 12) +
       inverse_square *
           (M(-1.0 / 120) +
            inverse_square *
                (M(1.0 / 252) +
                 inverse_square * (M(-1.0 / 240) +
                                   inverse_square * (M(1.0 / 132) + inverse_square * (M(-691.0 / 32760) +
                                                                                      inverse_square * M(1.0 / 12)))))));
  return result + std::log(x) - M(0.5) / x - series;
}

// trigamma(x): the reflection formula below 1/2, six steps of the recurrence, then the
// asymptotic series 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7).
template <typename M>
TORCH_CORE_HOST_DEVICE M trigamma(M x) {
  const M pi = M(3.14159265358979323846);
  M sign = 1;
  M result = 0;
  if (x < M(0.5)) {
    sign = -1;
    const M sin_pi_x = std::sin(pi * x);
    result -= (pi * pi) / (sin_pi_x * sin_pi_x);
    x = M(1) - x;
  }
  for (int step = 0; step < 6; ++step) {
    result += M(1) / (x * x);
    x += M(1);
  }
  const M inverse_square = M(1) / (x * x);
  result += (M(1) + M(1) / (M(2) * x) +
             inverse_square * (M(1.0 / 6) - inverse_square * (M(1.0 / 30) - inverse_square * M(1.0 / 42)))) /
            x;
  return sign * result;
}

}  // namespace detail

TORCH_CORE_UNARY_FUNCTOR(Digamma, false, detail::digamma(x))
TORCH_CORE_UNARY_FUNCTOR(Trigamma, false, detail::trigamma(x))

// polygamma(n, x): digamma and trigamma for n = 0 and 1, Math.h's zeta-based formula above.
template <typename T>
struct Polygamma {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  int n;
  static Polygamma make(const ElementwiseCall& c) { return {static_cast<int>(c.arg0.to<int64_t>())}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (n == 0) return detail::digamma(x);
    if (n == 1) return detail::trigamma(x);
    return ::calc_polygamma<M, /*is_cuda=*/true>(x, n);
  }
};

// erfinv: CUDA's own on the device, ATen's rational approximation on the host.
template <typename T>
struct Erfinv {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Erfinv make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
#if defined(__CUDA_ARCH__)
    return ::erfinv(x);
#else
    return ::calc_erfinv(x);
#endif
  }
};

// entr: -x log x, 0 at 0, -inf below 0, NaN stays.
template <typename T>
struct Entr {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Entr make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (x != x) return x;
    if (x > M(0)) return -x * std::log(x);
    return x == M(0) ? M(0) : -std::numeric_limits<M>::infinity();
  }
};

// sinc: sin(pi x) / (pi x), 1 at 0.
template <typename T>
struct Sinc {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Sinc make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (x == M(0)) return M(1);
    const M product = M(3.14159265358979323846) * x;
    return std::sin(product) / product;
  }
};

// Hurwitz zeta(x, q).
template <typename T>
struct Zeta {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Zeta make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M q) const { return ::zeta<M, /*is_cuda=*/true>(x, q); }
};

// The float-only functions of torch.special whose host+device implementation is Math.h's.
#define TORCH_CORE_MATH_H_FUNCTOR(Name, function) TORCH_CORE_UNARY_FUNCTOR(Name, false, ::function(x))
TORCH_CORE_MATH_H_FUNCTOR(Ndtri, calc_ndtri)
TORCH_CORE_MATH_H_FUNCTOR(LogNdtr, calc_log_ndtr)
TORCH_CORE_MATH_H_FUNCTOR(Erfcx, calc_erfcx)
TORCH_CORE_MATH_H_FUNCTOR(AiryAi, airy_ai_forward)
TORCH_CORE_MATH_H_FUNCTOR(BesselJ0, bessel_j0_forward)
TORCH_CORE_MATH_H_FUNCTOR(BesselJ1, bessel_j1_forward)
TORCH_CORE_MATH_H_FUNCTOR(BesselY0, bessel_y0_forward)
TORCH_CORE_MATH_H_FUNCTOR(BesselY1, bessel_y1_forward)
TORCH_CORE_MATH_H_FUNCTOR(ModifiedBesselI0, modified_bessel_i0_forward)
TORCH_CORE_MATH_H_FUNCTOR(ModifiedBesselI1, modified_bessel_i1_forward)
TORCH_CORE_MATH_H_FUNCTOR(ModifiedBesselK0, modified_bessel_k0_forward)
TORCH_CORE_MATH_H_FUNCTOR(ModifiedBesselK1, modified_bessel_k1_forward)
TORCH_CORE_MATH_H_FUNCTOR(ScaledModifiedBesselK0, scaled_modified_bessel_k0_forward)
TORCH_CORE_MATH_H_FUNCTOR(ScaledModifiedBesselK1, scaled_modified_bessel_k1_forward)
TORCH_CORE_MATH_H_FUNCTOR(SphericalBesselJ0, spherical_bessel_j0_forward)
#undef TORCH_CORE_MATH_H_FUNCTOR

// The orthogonal polynomials of x of degree n (a tensor too), Math.h's recurrences.
#define TORCH_CORE_POLYNOMIAL_FUNCTOR(Name, function)                                   \
  template <typename T>                                                                 \
  struct Name {                                                                         \
    using M = opmath_t<T>;                                                              \
    static constexpr bool supported = kIsFloating<T>;                                   \
    static Name make(const ElementwiseCall&) { return {}; }                             \
    TORCH_CORE_HOST_DEVICE M operator()(M x, M n) const {                               \
      return ::function<M, /*is_cuda=*/true>(x, n);                          \
    }                                                                                   \
  };
TORCH_CORE_POLYNOMIAL_FUNCTOR(ChebyshevPolynomialT, chebyshev_polynomial_t_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ChebyshevPolynomialU, chebyshev_polynomial_u_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ChebyshevPolynomialV, chebyshev_polynomial_v_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ChebyshevPolynomialW, chebyshev_polynomial_w_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ShiftedChebyshevPolynomialT, shifted_chebyshev_polynomial_t_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ShiftedChebyshevPolynomialU, shifted_chebyshev_polynomial_u_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ShiftedChebyshevPolynomialV, shifted_chebyshev_polynomial_v_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(ShiftedChebyshevPolynomialW, shifted_chebyshev_polynomial_w_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(HermitePolynomialH, hermite_polynomial_h_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(HermitePolynomialHe, hermite_polynomial_he_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(LaguerrePolynomialL, laguerre_polynomial_l_forward)
TORCH_CORE_POLYNOMIAL_FUNCTOR(LegendrePolynomialP, legendre_polynomial_p_forward)
#undef TORCH_CORE_POLYNOMIAL_FUNCTOR

}  // namespace torch_core::engine
