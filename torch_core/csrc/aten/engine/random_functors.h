// The distributions of the random kernels (random_call.h), written once for the host and
// CUDA engines. Each element draws from its own Philox4x32-10 subsequence (PhiloxDraws),
// and transforms uniforms as stock's CUDA kernels do (DistributionTemplates.h): uniforms
// in (0, 1], 24 bits for float and narrower types, 53 (two draws) for double.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ATen/core/PhiloxRNGEngine.h>

#include "torch_core/csrc/aten/engine/functor_types.h"
#include "torch_core/csrc/aten/engine/random_call.h"

namespace torch_core::engine {

// The draws of one element: subsequence `element` of the call's (seed, offset).
class PhiloxDraws {
 public:
  TORCH_CORE_HOST_DEVICE PhiloxDraws(uint64_t seed, uint64_t element, uint64_t offset)
      : engine_(seed, element, offset / 4) {}  // the offset counts 32-bit draws

  TORCH_CORE_HOST_DEVICE uint32_t next32() { return engine_(); }
  TORCH_CORE_HOST_DEVICE uint64_t next64() {
    const uint64_t high = engine_();
    return (high << 32) | engine_();
  }

  // A uniform number in (0, 1] of M (float or double).
  template <typename M>
  TORCH_CORE_HOST_DEVICE M uniform() {
    if constexpr (std::is_same_v<M, double>) {
      return static_cast<double>((next64() >> 11) + 1) * (1.0 / 9007199254740992.0);
    } else {
      return static_cast<float>((next32() >> 8) + 1) * (1.0f / 16777216.0f);
    }
  }

 private:
  at::philox_engine engine_;
};

// The type a distribution computes in: double for double, float for every other dtype.
template <typename T>
using random_math_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct Uniform {
  static constexpr bool supported = kIsFloating<T>;
  using M = random_math_t<T>;
  M from, to;
  static Uniform make(const RandomCall& c) { return {static_cast<M>(c.arg0), static_cast<M>(c.arg1)}; }
  TORCH_CORE_HOST_DEVICE T operator()(PhiloxDraws& rng) const {
    // (0, 1] scaled to (from, to]; `to` itself is reflected to `from`, as stock does.
    const T value = static_cast<T>(rng.uniform<M>() * (to - from) + from);
    return static_cast<M>(value) == to ? static_cast<T>(from) : value;
  }
};

namespace detail {
// Box-Muller: one standard normal from two uniforms.
template <typename M>
TORCH_CORE_HOST_DEVICE M standard_normal(PhiloxDraws& rng) {
  const M u1 = rng.uniform<M>();
  const M u2 = rng.uniform<M>();
  return std::sqrt(M(-2) * std::log(u1)) * std::cos(M(2) * static_cast<M>(M_PI) * u2);
}
}  // namespace detail

// A distribution of floating dtypes with two parameters (a, b): `expr` of them and `rng`.
#define TORCH_CORE_TWO_PARAMETER_DISTRIBUTION(Name, a, b, expr)                                    \
  template <typename T>                                                                         \
  struct Name {                                                                                 \
    static constexpr bool supported = kIsFloating<T>;                                           \
    using M = random_math_t<T>;                                                                 \
    M a, b;                                                                                     \
    static Name make(const RandomCall& c) { return {static_cast<M>(c.arg0), static_cast<M>(c.arg1)}; } \
    TORCH_CORE_HOST_DEVICE M operator()(PhiloxDraws& rng) const { return expr; }                \
  };

TORCH_CORE_TWO_PARAMETER_DISTRIBUTION(Normal, mean, stdev, detail::standard_normal<M>(rng) * stdev + mean)
TORCH_CORE_TWO_PARAMETER_DISTRIBUTION(LogNormal, mean, stdev, std::exp(detail::standard_normal<M>(rng) * stdev + mean))
TORCH_CORE_TWO_PARAMETER_DISTRIBUTION(Cauchy, median, sigma,
                                      median + sigma * std::tan(static_cast<M>(M_PI) * (rng.uniform<M>() - M(0.5))))
#undef TORCH_CORE_TWO_PARAMETER_DISTRIBUTION

template <typename T>
struct Exponential {
  static constexpr bool supported = kIsFloating<T>;
  using M = random_math_t<T>;
  M lambda;
  static Exponential make(const RandomCall& c) { return {static_cast<M>(c.arg0)}; }
  TORCH_CORE_HOST_DEVICE M operator()(PhiloxDraws& rng) const {
    // log(1) would give 0, outside the distribution's support: as stock, a uniform
    // within half an epsilon of 1 maps to -epsilon/2.
    const M u = rng.uniform<M>();
    const M eps = std::numeric_limits<M>::epsilon();
    const M log_u = u >= M(1) - eps / 2 ? -eps / 2 : std::log(u);
    return -log_u / lambda;
  }
};

template <typename T>
struct Geometric {
  static constexpr bool supported = kIsReal<T>;
  using M = random_math_t<T>;
  M p;
  static Geometric make(const RandomCall& c) { return {static_cast<M>(c.arg0)}; }
  TORCH_CORE_HOST_DEVICE M operator()(PhiloxDraws& rng) const {
    return std::ceil(std::log(rng.uniform<M>()) / std::log1p(-p));
  }
};

// bernoulli_(p): 1 with probability p, any output dtype.
template <typename T>
struct Bernoulli {
  static constexpr bool supported = true;
  using M = random_math_t<T>;
  M p;
  static Bernoulli make(const RandomCall& c) { return {static_cast<M>(c.arg0)}; }
  TORCH_CORE_HOST_DEVICE M operator()(PhiloxDraws& rng) const { return rng.uniform<M>() <= p ? M(1) : M(0); }
};

// bernoulli_(p tensor): the iterator is (self, p); T is p's dtype.
template <typename T>
struct BernoulliTensor {
  static constexpr bool supported = kIsFloating<T>;
  using M = random_math_t<T>;
  static BernoulliTensor make(const RandomCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE M operator()(PhiloxDraws& rng, M p) const { return rng.uniform<M>() <= p ? M(1) : M(0); }
};

// random_(from, to) and random_(): base + r % range, from 32 draws where the range allows.
template <typename T>
struct RandomFromTo {
  static constexpr bool supported = !kIsComplex<T>;
  uint64_t range;
  int64_t base;
  static RandomFromTo make(const RandomCall& c) { return {c.range, c.base}; }
  TORCH_CORE_HOST_DEVICE int64_t operator()(PhiloxDraws& rng) const {
    if (range == 0) return static_cast<int64_t>(rng.next64());  // the full 64-bit range
    const uint64_t r = range > (uint64_t{1} << 32) ? rng.next64() : rng.next32();
    return static_cast<int64_t>(r % range + static_cast<uint64_t>(base));
  }
};

}  // namespace torch_core::engine
