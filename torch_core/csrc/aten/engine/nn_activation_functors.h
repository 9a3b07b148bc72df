// torch.nn.functional's other activations (elementwise_functors.h): elu, hardsigmoid,
// hardswish, softplus, the shrinks, mish, log_sigmoid, logit, glu and prelu, and their
// backwards. Operand order follows each stub's iterator: a backward's (grad_output, x)
// unless noted; the formulas are stock's CUDA kernels', in opmath.
#pragma once

#include <cmath>
#include <limits>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

// elu_stub: alpha * scale * expm1(x * input_scale) below 0, scale * x above.
template <typename T>
struct Elu {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M negative_coef, positive_coef, input_scale;
  static Elu make(const ElementwiseCall& c) {
    return {c.arg0.to<M>() * c.arg1.to<M>(), c.arg1.to<M>(), c.arg2.to<M>()};
  }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    return x > M(0) ? x * positive_coef : std::expm1(x * input_scale) * negative_coef;
  }
};

// elu_backward_stub (grad, x or the forward's result when arg3 is set).
template <typename T>
struct EluBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M negative_coef, positive_coef, input_scale;
  bool is_result;
  static EluBackward make(const ElementwiseCall& c) {
    return {c.arg0.to<M>() * c.arg1.to<M>(), c.arg1.to<M>(), c.arg2.to<M>(), c.arg3.to<bool>()};
  }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M v) const {
    if (v > M(0)) return dy * positive_coef;
    return is_result ? dy * input_scale * (v + negative_coef)
                     : dy * input_scale * negative_coef * std::exp(v * input_scale);
  }
};

namespace detail {
// min(max(x + 3, 0), 6) as std::min/std::max compute it (NaN passes through).
template <typename M>
TORCH_CORE_HOST_DEVICE M relu6_of_shifted(M x) {
  const M shifted = x + M(3) < M(0) ? M(0) : x + M(3);
  return M(6) < shifted ? M(6) : shifted;
}
}  // namespace detail

TORCH_CORE_UNARY_FUNCTOR(Hardsigmoid, false, detail::relu6_of_shifted(x) / M(6))

template <typename T>
struct HardsigmoidBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static HardsigmoidBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const { return x > M(-3) && x < M(3) ? dy / M(6) : M(0); }
};

TORCH_CORE_UNARY_FUNCTOR(Hardswish, false, x * detail::relu6_of_shifted(x) / M(6))

template <typename T>
struct HardswishBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static HardswishBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    if (x < M(-3)) return M(0);
    if (x <= M(3)) return dy * (x / M(3) + M(0.5));
    return dy;
  }
};

// hardtanh_backward_stub: the gradient where min < x < max, 0 elsewhere.
template <typename T>
struct HardtanhBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M lo, hi;
  static HardtanhBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const { return x <= lo || x >= hi ? M(0) : dy; }
};

// softplus: log1p(exp(beta x)) / beta, x itself above the threshold.
template <typename T>
struct Softplus {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M beta, threshold;
  static Softplus make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
  }
};

template <typename T>
struct SoftplusBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M beta, threshold;
  static SoftplusBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M z = std::exp(x * beta);
    return x * beta > threshold ? dy : dy * z / (z + M(1));
  }
};

// softshrink: x moved towards 0 by lambda, 0 within it; NaN stays.
template <typename T>
struct Softshrink {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M lambda;
  static Softshrink make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (x != x) return x;
    return x > lambda ? x - lambda : (x < -lambda ? x + lambda : M(0));
  }
};

template <typename T>
struct Hardshrink {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M lambda;
  static Hardshrink make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const { return x >= -lambda && x <= lambda ? M(0) : x; }
};

// shrink_backward_stub (softshrink's and hardshrink's): 0 within lambda.
template <typename T>
struct ShrinkBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M lambda;
  static ShrinkBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const { return x >= -lambda && x <= lambda ? M(0) : dy; }
};

TORCH_CORE_UNARY_FUNCTOR(Mish, false, x * std::tanh(std::log1p(std::exp(x))))

template <typename T>
struct MishBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static MishBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M sigmoid = M(1) / (M(1) + std::exp(-x));
    const M tanh_softplus = std::tanh(std::log1p(std::exp(x)));
    return dy * (tanh_softplus + x * sigmoid * (M(1) - tanh_softplus * tanh_softplus));
  }
};

// log_sigmoid: min(x, 0) - log1p(exp(-|x|)), stable for large |x|.
TORCH_CORE_UNARY_FUNCTOR(LogSigmoid, false, std::fmin(x, M(0)) - std::log1p(std::exp(-std::fabs(x))))

// log_sigmoid's backward; its iterator is (grad_input, x, grad_output).
template <typename T>
struct LogSigmoidBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static LogSigmoidBackward make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M dy) const {
    const bool negative = x < M(0);
    const M z = std::exp(-std::fabs(x));
    return dy * ((negative ? M(1) : M(0)) - (negative ? M(1) : M(-1)) * (z / (M(1) + z)));
  }
};

// logit: log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0.
template <typename T>
struct Logit {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M eps;
  static Logit make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (eps >= M(0)) x = x < eps ? eps : (x > M(1) - eps ? M(1) - eps : x);
    return std::log(x / (M(1) - x));
  }
};

// logit's backward: NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it.
template <typename T>
struct LogitBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M eps;
  static LogitBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M dy, M x) const {
    const M lo = eps < M(0) ? M(0) : eps;
    const M hi = eps < M(0) ? M(1) : M(1) - eps;
    if (x < lo || x > hi) return eps < M(0) ? std::numeric_limits<M>::quiet_NaN() : M(0);
    return dy / (x * (M(1) - x));
  }
};

// glu_stub: a * sigmoid(b) over the input's two halves.
template <typename T>
struct Glu {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Glu make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const { return a * (M(1) / (M(1) + std::exp(-b))); }
};

// prelu_stub (x, weight).
template <typename T>
struct Prelu {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Prelu make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, M w) const { return x > M(0) ? x : w * x; }
};

}  // namespace torch_core::engine
