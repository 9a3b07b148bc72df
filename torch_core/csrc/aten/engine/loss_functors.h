// Loss functors (elementwise_functors.h): the pointwise parts of mse_loss, smooth_l1_loss
// and huber_loss with their backwards, renorm's scale factor and angle, with stock's CUDA
// formulas. A backward's iterator is (grad_input, self, target, grad_output); `norm` is
// the reduction's 1/n (or 1).
#pragma once

#include <cmath>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

template <typename T>
struct Mse {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Mse make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    const M diff = a - b;
    return diff * diff;
  }
};

template <typename T>
struct MseBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M alpha;
  static MseBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b, M dy) const { return alpha * (a - b) * dy; }
};

template <typename T>
struct SmoothL1 {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M beta;
  static SmoothL1 make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    const M z = std::abs(a - b);
    return z < beta ? M(0.5) * z * z / beta : z - M(0.5) * beta;
  }
};

template <typename T>
struct SmoothL1Backward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M norm, beta;
  static SmoothL1Backward make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b, M dy) const {
    const M x = a - b;
    if (x < -beta) return -norm * dy;
    if (x > beta) return norm * dy;
    return norm * x * dy / beta;
  }
};

template <typename T>
struct Huber {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M delta;
  static Huber make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b) const {
    const M z = std::abs(a - b);
    return z < delta ? M(0.5) * z * z : delta * (z - M(0.5) * delta);
  }
};

template <typename T>
struct HuberBackward {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M norm, delta;
  static HuberBackward make(const ElementwiseCall& c) { return {c.arg0.to<M>(), c.arg1.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M a, M b, M dy) const {
    const M x = a - b;
    if (x < -delta) return -norm * dy * delta;
    if (x > delta) return norm * dy * delta;
    return norm * x * dy;
  }
};

// renorm: a slice whose norm exceeds maxnorm is scaled by maxnorm / (norm + 1e-7).
template <typename T>
struct RenormFactor {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M maxnorm;
  static RenormFactor make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M norm) const { return norm > maxnorm ? maxnorm / (norm + M(1e-7)) : M(1); }
};

// angle of a real number: pi for negatives, 0 otherwise, NaN kept (integers come
// promoted to float).
template <typename T>
struct Angle {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  static Angle make(const ElementwiseCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x) const {
    if (x != x) return x;
    return x < M(0) ? M(3.14159265358979323846) : M(0);
  }
};

}  // namespace torch_core::engine
