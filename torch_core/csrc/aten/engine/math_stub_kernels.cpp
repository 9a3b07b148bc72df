// The DispatchStub kernels of the math beyond the core arithmetic: special functions
// (digamma .. spherical_bessel_j0), the orthogonal polynomials, the binary math of
// binary_math_functors.h, and conj_physical, sgn, round(decimals), signbit, nan_to_num.
// Each describes its iterator and runs one elementwise call on the engine.
#include <limits>
#include <optional>

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/UnaryOps.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

using Op = ElementwiseOp;

// The common dtype: integer inputs of the float ops have been promoted to float by then.
#define TORCH_CORE_COMMON(stub, name)                                                \
  void stub##_kernel(at::TensorIteratorBase& iter) {                                 \
    run_elementwise(iter, ElementwiseCall{Op::k##name, iter.common_dtype()});        \
  }
TORCH_CORE_COMMON(digamma, Digamma)
TORCH_CORE_COMMON(trigamma, Trigamma)
TORCH_CORE_COMMON(erfinv, Erfinv)
TORCH_CORE_COMMON(special_entr, Entr)
TORCH_CORE_COMMON(sinc, Sinc)
TORCH_CORE_COMMON(special_ndtri, Ndtri)
TORCH_CORE_COMMON(special_log_ndtr, LogNdtr)
TORCH_CORE_COMMON(special_erfcx, Erfcx)
TORCH_CORE_COMMON(special_airy_ai, AiryAi)
TORCH_CORE_COMMON(special_bessel_j0, BesselJ0)
TORCH_CORE_COMMON(special_bessel_j1, BesselJ1)
TORCH_CORE_COMMON(special_bessel_y0, BesselY0)
TORCH_CORE_COMMON(special_bessel_y1, BesselY1)
TORCH_CORE_COMMON(special_modified_bessel_i0, ModifiedBesselI0)
TORCH_CORE_COMMON(special_modified_bessel_i1, ModifiedBesselI1)
TORCH_CORE_COMMON(special_modified_bessel_k0, ModifiedBesselK0)
TORCH_CORE_COMMON(special_modified_bessel_k1, ModifiedBesselK1)
TORCH_CORE_COMMON(special_scaled_modified_bessel_k0, ScaledModifiedBesselK0)
TORCH_CORE_COMMON(special_scaled_modified_bessel_k1, ScaledModifiedBesselK1)
TORCH_CORE_COMMON(special_spherical_bessel_j0, SphericalBesselJ0)
TORCH_CORE_COMMON(zeta, Zeta)
TORCH_CORE_COMMON(chebyshev_polynomial_t, ChebyshevPolynomialT)
TORCH_CORE_COMMON(chebyshev_polynomial_u, ChebyshevPolynomialU)
TORCH_CORE_COMMON(chebyshev_polynomial_v, ChebyshevPolynomialV)
TORCH_CORE_COMMON(chebyshev_polynomial_w, ChebyshevPolynomialW)
TORCH_CORE_COMMON(shifted_chebyshev_polynomial_t, ShiftedChebyshevPolynomialT)
TORCH_CORE_COMMON(shifted_chebyshev_polynomial_u, ShiftedChebyshevPolynomialU)
TORCH_CORE_COMMON(shifted_chebyshev_polynomial_v, ShiftedChebyshevPolynomialV)
TORCH_CORE_COMMON(shifted_chebyshev_polynomial_w, ShiftedChebyshevPolynomialW)
TORCH_CORE_COMMON(hermite_polynomial_h, HermitePolynomialH)
TORCH_CORE_COMMON(hermite_polynomial_he, HermitePolynomialHe)
TORCH_CORE_COMMON(laguerre_polynomial_l, LaguerrePolynomialL)
TORCH_CORE_COMMON(legendre_polynomial_p, LegendrePolynomialP)
TORCH_CORE_COMMON(logaddexp, Logaddexp)
TORCH_CORE_COMMON(logaddexp2, Logaddexp2)
TORCH_CORE_COMMON(copysign, Copysign)
TORCH_CORE_COMMON(fmax, Fmax)
TORCH_CORE_COMMON(fmin, Fmin)
TORCH_CORE_COMMON(hypot, Hypot)
TORCH_CORE_COMMON(nextafter, Nextafter)
TORCH_CORE_COMMON(heaviside, Heaviside)
TORCH_CORE_COMMON(gcd, Gcd)
TORCH_CORE_COMMON(lcm, Lcm)
TORCH_CORE_COMMON(lshift, LeftShift)
TORCH_CORE_COMMON(rshift, RightShift)
TORCH_CORE_COMMON(xlogy, Xlogy)
TORCH_CORE_COMMON(xlog1py, Xlog1py)
TORCH_CORE_COMMON(conj_physical, Conj)
TORCH_CORE_COMMON(sgn, Sgn)
#undef TORCH_CORE_COMMON

// signbit reads its input's dtype (the output is bool).
void signbit_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseCall{Op::kSignbit, iter.input_dtype()});
}

void polygamma_kernel(at::TensorIteratorBase& iter, int64_t n) {
  run_elementwise(iter, ElementwiseCall{Op::kPolygamma, iter.common_dtype(), n});
}

void round_decimals_kernel(at::TensorIteratorBase& iter, int64_t decimals) {
  run_elementwise(iter, ElementwiseCall{Op::kRoundDecimals, iter.common_dtype(), decimals});
}

// nan_to_num: the replacements default to 0 and the dtype's largest and lowest values.
void nan_to_num_kernel(at::TensorIteratorBase& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "nan_to_num", [&] {
    const double largest = static_cast<double>(std::numeric_limits<scalar_t>::max());
    const double lowest = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
    run_elementwise(iter, ElementwiseCall{Op::kNanToNum, iter.common_dtype(), nan.value_or(0.0),
                                          posinf.value_or(largest), neginf.value_or(lowest)});
  });
}

}  // namespace

void fill_math_stubs(c10::DeviceType t) {
  namespace native = at::native;
#define TORCH_CORE_FILL(stub) set_slot(native::stub##_stub, t, &stub##_kernel);
  TORCH_CORE_FILL(digamma) TORCH_CORE_FILL(trigamma) TORCH_CORE_FILL(polygamma) TORCH_CORE_FILL(erfinv)
  TORCH_CORE_FILL(special_entr) TORCH_CORE_FILL(sinc) TORCH_CORE_FILL(special_ndtri)
  TORCH_CORE_FILL(special_log_ndtr) TORCH_CORE_FILL(special_erfcx) TORCH_CORE_FILL(special_airy_ai)
  TORCH_CORE_FILL(special_bessel_j0) TORCH_CORE_FILL(special_bessel_j1) TORCH_CORE_FILL(special_bessel_y0)
  TORCH_CORE_FILL(special_bessel_y1) TORCH_CORE_FILL(special_modified_bessel_i0)
  TORCH_CORE_FILL(special_modified_bessel_i1) TORCH_CORE_FILL(special_modified_bessel_k0)
  TORCH_CORE_FILL(special_modified_bessel_k1) TORCH_CORE_FILL(special_scaled_modified_bessel_k0)
  TORCH_CORE_FILL(special_scaled_modified_bessel_k1) TORCH_CORE_FILL(special_spherical_bessel_j0)
  TORCH_CORE_FILL(zeta) TORCH_CORE_FILL(chebyshev_polynomial_t) TORCH_CORE_FILL(chebyshev_polynomial_u)
  TORCH_CORE_FILL(chebyshev_polynomial_v) TORCH_CORE_FILL(chebyshev_polynomial_w)
  TORCH_CORE_FILL(shifted_chebyshev_polynomial_t) TORCH_CORE_FILL(shifted_chebyshev_polynomial_u)
  TORCH_CORE_FILL(shifted_chebyshev_polynomial_v) TORCH_CORE_FILL(shifted_chebyshev_polynomial_w)
  TORCH_CORE_FILL(hermite_polynomial_h) TORCH_CORE_FILL(hermite_polynomial_he)
  TORCH_CORE_FILL(laguerre_polynomial_l) TORCH_CORE_FILL(legendre_polynomial_p) TORCH_CORE_FILL(logaddexp)
  TORCH_CORE_FILL(logaddexp2) TORCH_CORE_FILL(copysign) TORCH_CORE_FILL(fmax) TORCH_CORE_FILL(fmin)
  TORCH_CORE_FILL(hypot) TORCH_CORE_FILL(nextafter) TORCH_CORE_FILL(heaviside) TORCH_CORE_FILL(gcd)
  TORCH_CORE_FILL(lcm) TORCH_CORE_FILL(lshift) TORCH_CORE_FILL(rshift) TORCH_CORE_FILL(xlogy)
  TORCH_CORE_FILL(xlog1py) TORCH_CORE_FILL(conj_physical) TORCH_CORE_FILL(sgn) TORCH_CORE_FILL(signbit)
  TORCH_CORE_FILL(round_decimals) TORCH_CORE_FILL(nan_to_num)
#undef TORCH_CORE_FILL
}

}  // namespace torch_core::engine
