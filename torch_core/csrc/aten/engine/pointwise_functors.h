// Pointwise functors of several operands (elementwise_functors.h): the clamp family,
// where, addcmul/addcdiv, lerp, fill, dropout's masked scale.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "torch_core/csrc/aten/engine/functor_types.h"

namespace torch_core::engine {

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

// fill_: every element the scalar (the iterator has the output only).
template <typename T>
struct Fill {
  static constexpr bool supported = true;
  T value;
  static Fill make(const ElementwiseCall& c) { return {c.arg0.to<T>()}; }
  TORCH_CORE_HOST_DEVICE T operator()() const { return value; }
};

// Dropout's output and gradient: x * mask * scale, the iterator (out, x, mask).
template <typename T>
struct MaskedScale {
  using M = opmath_t<T>;
  static constexpr bool supported = kIsFloating<T>;
  M scale;
  static MaskedScale make(const ElementwiseCall& c) { return {c.arg0.to<M>()}; }
  TORCH_CORE_HOST_DEVICE M operator()(M x, bool mask) const { return x * static_cast<M>(mask) * scale; }
};

}  // namespace torch_core::engine
