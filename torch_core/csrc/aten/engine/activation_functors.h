// Activation functors and their backwards (elementwise_functors.h); a backward takes the
// incoming gradient first.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

TORCH_CORE_UNARY_FUNCTOR(Silu, false, x / (M(1) + std::exp(-x)))
TORCH_CORE_UNARY_FUNCTOR(GeluNone, false, x * M(0.5) * (M(1) + std::erf(x * M(M_SQRT1_2))))
TORCH_CORE_UNARY_FUNCTOR(GeluTanh, false,
                         M(0.5) * x * (M(1) + std::tanh(M(M_SQRT2 * M_2_SQRTPI * 0.5) * (x + M(0.044715) * x * x * x))))

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

}  // namespace torch_core::engine
