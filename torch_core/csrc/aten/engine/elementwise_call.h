// One elementwise kernel call as a kernel engine receives it: which operation, in which
// compute dtype, with which scalar arguments (alpha, clamp bounds, ...). Every operation
// the stubs use is listed once here; the functors (elementwise_functors.h) and the
// dispatch from (op, dtype) to a typed loop (elementwise_dispatch.h) follow this list.
#pragma once

#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

namespace torch_core::engine {

// X(name): the operations, in groups (an engine may compile each group in a unit of its
// own); elementwise_functors.h has a functor for each.
#define TORCH_CORE_UNARY_MATH_OPS(X)                                                            \
  X(Sin) X(Cos) X(Tan) X(Asin) X(Acos) X(Atan) X(Sinh) X(Cosh) X(Tanh) X(Asinh) X(Acosh) X(Atanh) \
  X(Exp) X(Exp2) X(Expm1) X(Log) X(Log10) X(Log1p) X(Log2) X(Sqrt) X(Rsqrt) X(Sigmoid) X(Erf)     \
  X(Erfc) X(Reciprocal) X(Lgamma)
#define TORCH_CORE_UNARY_OTHER_OPS(X) \
  X(Ceil) X(Floor) X(Round) X(Trunc) X(Frac) X(Abs) X(Neg) X(Sign) X(LogicalNot) X(BitwiseNot) \
  X(IsNegInf) X(IsPosInf) X(Identity) X(Conj) X(Sgn) X(RoundDecimals) X(Signbit) X(NanToNum)
#define TORCH_CORE_ACTIVATION_OPS(X)                                                          \
  X(Silu) X(SiluBackward) X(GeluNone) X(GeluTanh) X(GeluBackwardNone) X(GeluBackwardTanh) \
  X(Threshold) X(LeakyRelu) X(LeakyReluBackward) X(SigmoidBackward) X(TanhBackward)
// torch.nn.functional's other activations, their backwards, glu and prelu.
#define TORCH_CORE_NN_ACTIVATION_OPS(X)                                                            \
  X(Elu) X(EluBackward) X(Hardsigmoid) X(HardsigmoidBackward) X(Hardswish) X(HardswishBackward)   \
  X(HardtanhBackward) X(Softplus) X(SoftplusBackward) X(Softshrink) X(Hardshrink) X(ShrinkBackward) \
  X(Mish) X(MishBackward) X(LogSigmoid) X(LogSigmoidBackward) X(Logit) X(LogitBackward) X(Glu) X(Prelu)
#define TORCH_CORE_BINARY_OPS(X)                                                               \
  X(Add) X(Mul) X(DivTrue) X(DivFloor) X(DivTrunc) X(Remainder) X(Fmod) X(Maximum) X(Minimum) \
  X(Atan2) X(Pow) X(PowScalar) X(BitwiseAnd) X(BitwiseOr) X(BitwiseXor)
#define TORCH_CORE_BINARY_MATH_OPS(X)                                                              \
  X(Logaddexp) X(Logaddexp2) X(Copysign) X(Fmax) X(Fmin) X(Hypot) X(Nextafter) X(Heaviside) X(Gcd) \
  X(Lcm) X(LeftShift) X(RightShift) X(Xlogy) X(Xlog1py)
// Special functions (torch.special), ATen/native/Math.h's where it has a host+device one.
#define TORCH_CORE_SPECIAL_OPS(X)                                                             \
  X(Digamma) X(Trigamma) X(Polygamma) X(Erfinv) X(Entr) X(Sinc) X(Zeta) X(Ndtri) X(LogNdtr) \
  X(Erfcx) X(AiryAi) X(BesselJ0) X(BesselJ1) X(BesselY0) X(BesselY1) X(ModifiedBesselI0)    \
  X(ModifiedBesselI1) X(ModifiedBesselK0) X(ModifiedBesselK1) X(ScaledModifiedBesselK0)     \
  X(ScaledModifiedBesselK1) X(SphericalBesselJ0)
// Orthogonal polynomials of x and a degree n.
#define TORCH_CORE_POLYNOMIAL_OPS(X)                                                                \
  X(ChebyshevPolynomialT) X(ChebyshevPolynomialU) X(ChebyshevPolynomialV) X(ChebyshevPolynomialW) \
  X(ShiftedChebyshevPolynomialT) X(ShiftedChebyshevPolynomialU) X(ShiftedChebyshevPolynomialV)     \
  X(ShiftedChebyshevPolynomialW) X(HermitePolynomialH) X(HermitePolynomialHe) X(LaguerrePolynomialL) \
  X(LegendrePolynomialP)
// The pointwise parts of the regression losses and their backwards, renorm, angle.
#define TORCH_CORE_LOSS_OPS(X) \
  X(Mse) X(MseBackward) X(SmoothL1) X(SmoothL1Backward) X(Huber) X(HuberBackward) X(RenormFactor) X(Angle)
// Comparison and logic: bool results.
#define TORCH_CORE_COMPARE_OPS(X) \
  X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(LogicalAnd) X(LogicalOr) X(LogicalXor)
#define TORCH_CORE_POINTWISE_OPS(X) \
  X(Clamp) X(ClampMin) X(ClampMax) X(ClampTensor) X(Where) X(Addcmul) X(Addcdiv) X(LerpScalar) X(LerpTensor) \
  X(Fill) X(MaskedScale)

#define TORCH_CORE_ELEMENTWISE_OPS(X) \
  TORCH_CORE_UNARY_MATH_OPS(X)        \
  TORCH_CORE_UNARY_OTHER_OPS(X)       \
  TORCH_CORE_ACTIVATION_OPS(X)        \
  TORCH_CORE_NN_ACTIVATION_OPS(X)     \
  TORCH_CORE_BINARY_OPS(X)            \
  TORCH_CORE_BINARY_MATH_OPS(X)       \
  TORCH_CORE_SPECIAL_OPS(X)           \
  TORCH_CORE_POLYNOMIAL_OPS(X)        \
  TORCH_CORE_LOSS_OPS(X)              \
  TORCH_CORE_COMPARE_OPS(X)           \
  TORCH_CORE_POINTWISE_OPS(X)

enum class ElementwiseOp {
#define TORCH_CORE_ENUM(name) k##name,
  TORCH_CORE_ELEMENTWISE_OPS(TORCH_CORE_ENUM)
#undef TORCH_CORE_ENUM
  kCount
};

struct ElementwiseCall {
  ElementwiseOp op;
  // The dtype the functor computes in (the iterator's common dtype); inputs of other
  // dtypes are cast on load, the output on store.
  c10::ScalarType compute;
  // The operation's scalar arguments, in the order its functor's make() reads them.
  c10::Scalar arg0 = 0;
  c10::Scalar arg1 = 0;
  c10::Scalar arg2 = 0;
  c10::Scalar arg3 = 0;
};

// The operation's name, for error messages ("sin", "add", ...).
const char* name_of(ElementwiseOp op);

}  // namespace torch_core::engine
