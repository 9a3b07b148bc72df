// The functors of the reductions (reduce_call.h), written once for the host engine and
// the CUDA engine, after stock's CUDA ReduceOps: each is a template over the compute dtype
// T and the accumulation type Acc (reduce_acc_t) with
//   supported                      whether stock CUDA torch has the reduction for T
//   make(call)                     the functor with its arguments (host side)
//   identity()                     the accumulator before any element
//   reduce(acc, value, index)      folds one input element (index: its position among
//                                  the reduced elements, for argmax/argmin)
//   combine(a, b)                  merges two partial accumulators (a's elements first)
//   project(acc)                   the output value, or an OutPair for two outputs
// The host engine folds each output's elements in order; the CUDA engine folds per thread
// and combines across the block.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <c10/util/complex.h>

#include "torch_core/csrc/aten/engine/functor_types.h"
#include "torch_core/csrc/aten/engine/reduce_call.h"
#include "torch_core/csrc/aten/host_device.h"

namespace torch_core::engine {

template <typename T>
struct real_of {
  using type = T;
};
template <typename T>
struct real_of<c10::complex<T>> {
  using type = T;
};

// The accumulation type: int64 for integers and bool, float for Half and BFloat16; float
// stays float on the device (as stock's CUDA kernels) and widens to double on the host,
// whose sequential fold would otherwise lose more than the GPU's tree.
template <typename T, bool kOnDevice>
using reduce_acc_t = std::conditional_t<
    std::is_integral_v<T>, int64_t,
    std::conditional_t<kIsReducedFloat<T>, float,
                       std::conditional_t<std::is_same_v<T, float>, std::conditional_t<kOnDevice, float, double>,
                                          std::conditional_t<std::is_same_v<T, c10::complex<float>>,
                                                             std::conditional_t<kOnDevice, c10::complex<float>,
                                                                                c10::complex<double>>,
                                                             T>>>>;

// Two outputs of one reduction (var_mean: the variance or deviation, then the mean).
template <typename R>
struct OutPair {
  R first;
  R second;
};

template <typename T, typename Acc>
struct SumReduce {
  static constexpr bool supported = !std::is_same_v<T, bool>;
  static SumReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE Acc identity() const { return Acc(0); }
  TORCH_CORE_HOST_DEVICE Acc reduce(Acc a, Acc x, int64_t) const { return a + x; }
  TORCH_CORE_HOST_DEVICE Acc combine(Acc a, Acc b) const { return a + b; }
  TORCH_CORE_HOST_DEVICE Acc project(Acc a) const { return a; }
};

// nansum: NaN counts as zero (stock's NanSumOps; integer inputs never reach the stub).
template <typename T, typename Acc>
struct NanSumReduce {
  static constexpr bool supported = kIsFloating<T>;
  static NanSumReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE Acc identity() const { return Acc(0); }
  TORCH_CORE_HOST_DEVICE Acc reduce(Acc a, Acc x, int64_t) const { return x != x ? a : a + x; }
  TORCH_CORE_HOST_DEVICE Acc combine(Acc a, Acc b) const { return a + b; }
  TORCH_CORE_HOST_DEVICE Acc project(Acc a) const { return a; }
};

template <typename T, typename Acc>
struct ProdReduce {
  static constexpr bool supported = !std::is_same_v<T, bool>;
  static ProdReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE Acc identity() const { return Acc(1); }
  TORCH_CORE_HOST_DEVICE Acc reduce(Acc a, Acc x, int64_t) const { return a * x; }
  TORCH_CORE_HOST_DEVICE Acc combine(Acc a, Acc b) const { return a * b; }
  TORCH_CORE_HOST_DEVICE Acc project(Acc a) const { return a; }
};

// mean = sum * (outputs / inputs), the factor stock's MeanOps takes.
template <typename T, typename Acc>
struct MeanReduce {
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  typename real_of<Acc>::type factor;
  static MeanReduce make(const ReduceCall& c) { return {static_cast<typename real_of<Acc>::type>(c.arg)}; }
  TORCH_CORE_HOST_DEVICE Acc identity() const { return Acc(0); }
  TORCH_CORE_HOST_DEVICE Acc reduce(Acc a, Acc x, int64_t) const { return a + x; }
  TORCH_CORE_HOST_DEVICE Acc combine(Acc a, Acc b) const { return a + b; }
  TORCH_CORE_HOST_DEVICE Acc project(Acc a) const { return a * Acc(factor); }
};

namespace detail {
template <typename V>
TORCH_CORE_HOST_DEVICE V lowest() {
  if constexpr (std::numeric_limits<V>::has_infinity) return -std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::lowest();
}
template <typename V>
TORCH_CORE_HOST_DEVICE V highest() {
  if constexpr (std::numeric_limits<V>::has_infinity) return std::numeric_limits<V>::infinity();
  else return std::numeric_limits<V>::max();
}
}  // namespace detail

// amax / amin: NaN propagates. Computed in T's opmath type (exact: no rounding).
template <typename T, typename Acc, bool kMax>
struct ExtremeValuesReduce {
  using V = opmath_t<T>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static ExtremeValuesReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE V identity() const { return kMax ? detail::lowest<V>() : detail::highest<V>(); }
  TORCH_CORE_HOST_DEVICE V combine(V a, V b) const {
    if (detail::isnan(a)) return a;
    if (detail::isnan(b)) return b;
    return (kMax ? a < b : b < a) ? b : a;
  }
  TORCH_CORE_HOST_DEVICE V reduce(V a, V x, int64_t) const { return combine(a, x); }
  TORCH_CORE_HOST_DEVICE V project(V a) const { return a; }
};
template <typename T, typename Acc>
using MaxValuesReduce = ExtremeValuesReduce<T, Acc, true>;
template <typename T, typename Acc>
using MinValuesReduce = ExtremeValuesReduce<T, Acc, false>;

// argmax / argmin: the first index of the extreme value; a NaN wins (its first index).
template <typename V>
struct ValueIndex {
  V value;
  int64_t index;
};

template <typename T, typename Acc, bool kMax>
struct ArgExtremeReduce {
  using V = opmath_t<T>;
  using A = ValueIndex<V>;
  static constexpr bool supported = kIsReal<T> || std::is_same_v<T, bool>;
  static ArgExtremeReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE A identity() const { return {kMax ? detail::lowest<V>() : detail::highest<V>(), -1}; }
  TORCH_CORE_HOST_DEVICE A combine(A a, A b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = detail::isnan(a.value), b_nan = detail::isnan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index <= b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index <= b.index ? a : b;
    return (kMax ? a.value > b.value : a.value < b.value) ? a : b;
  }
  TORCH_CORE_HOST_DEVICE A reduce(A a, V x, int64_t index) const { return combine(a, A{x, index}); }
  TORCH_CORE_HOST_DEVICE int64_t project(A a) const { return a.index < 0 ? 0 : a.index; }
};
template <typename T, typename Acc>
using ArgMaxReduce = ArgExtremeReduce<T, Acc, true>;
template <typename T, typename Acc>
using ArgMinReduce = ArgExtremeReduce<T, Acc, false>;

// all / any: every input is read as bool (T is bool: the output's type).
template <typename T, typename Acc>
struct AllReduce {
  static constexpr bool supported = std::is_same_v<T, bool>;
  static AllReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool identity() const { return true; }
  TORCH_CORE_HOST_DEVICE bool reduce(bool a, bool x, int64_t) const { return a && x; }
  TORCH_CORE_HOST_DEVICE bool combine(bool a, bool b) const { return a && b; }
  TORCH_CORE_HOST_DEVICE bool project(bool a) const { return a; }
};

template <typename T, typename Acc>
struct AnyReduce {
  static constexpr bool supported = std::is_same_v<T, bool>;
  static AnyReduce make(const ReduceCall&) { return {}; }
  TORCH_CORE_HOST_DEVICE bool identity() const { return false; }
  TORCH_CORE_HOST_DEVICE bool reduce(bool a, bool x, int64_t) const { return a || x; }
  TORCH_CORE_HOST_DEVICE bool combine(bool a, bool b) const { return a || b; }
  TORCH_CORE_HOST_DEVICE bool project(bool a) const { return a; }
};

// The p-norm of T's values (complex: of their magnitudes), accumulated in a real type.
template <typename T, typename Acc>
struct NormReduce {
  using R = typename real_of<Acc>::type;
  static constexpr bool supported = kIsFloating<T> || kIsComplex<T>;
  R p;
  static NormReduce make(const ReduceCall& c) { return {static_cast<R>(c.arg)}; }
  TORCH_CORE_HOST_DEVICE bool is_max() const { return p == detail::highest<R>(); }
  TORCH_CORE_HOST_DEVICE bool is_min() const { return p == detail::lowest<R>(); }
  TORCH_CORE_HOST_DEVICE R identity() const { return is_min() ? detail::highest<R>() : R(0); }
  TORCH_CORE_HOST_DEVICE R combine(R a, R b) const {
    if (is_max()) return (detail::isnan(a) || a > b) ? a : b;
    if (is_min()) return (detail::isnan(a) || a < b) ? a : b;
    return a + b;
  }
  TORCH_CORE_HOST_DEVICE R reduce(R a, Acc x, int64_t) const {
    const R m = static_cast<R>(std::abs(x));
    if (is_max() || is_min()) return combine(a, m);
    if (p == R(0)) return a + (m != R(0) ? R(1) : R(0));
    if (p == R(1)) return a + m;
    if (p == R(2)) return a + m * m;
    return a + std::pow(m, p);
  }
  TORCH_CORE_HOST_DEVICE R project(R a) const {
    if (is_max() || is_min() || p == R(0) || p == R(1)) return a;
    if (p == R(2)) return std::sqrt(a);
    return std::pow(a, R(1) / p);
  }
};

// Variance or standard deviation (Welford, merged as Chan et al.), and the mean as a
// second output for var_mean / std_mean.
template <typename R>
struct Welford {
  R mean;
  R m2;
  int64_t n;
};

template <typename T, typename Acc>
struct StdVarReduce {
  using A = Welford<Acc>;
  static constexpr bool supported = kIsFloating<T>;
  Acc correction;
  bool take_sqrt;
  static StdVarReduce make(const ReduceCall& c) { return {static_cast<Acc>(c.arg), c.flag}; }
  TORCH_CORE_HOST_DEVICE A identity() const { return {Acc(0), Acc(0), 0}; }
  TORCH_CORE_HOST_DEVICE A reduce(A a, Acc x, int64_t) const {
    const int64_t n = a.n + 1;
    const Acc delta = x - a.mean;
    const Acc mean = a.mean + delta / static_cast<Acc>(n);
    return {mean, a.m2 + delta * (x - mean), n};
  }
  TORCH_CORE_HOST_DEVICE A combine(A a, A b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const Acc delta = b.mean - a.mean;
    const Acc nb_over_n = static_cast<Acc>(b.n) / static_cast<Acc>(n);
    return {a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * static_cast<Acc>(a.n) * nb_over_n, n};
  }
  TORCH_CORE_HOST_DEVICE OutPair<Acc> project(A a) const {
    const Acc divisor = static_cast<Acc>(a.n) - correction;
    const Acc var = a.m2 / (divisor > Acc(0) ? divisor : Acc(0));
    return {take_sqrt ? std::sqrt(var) : var, a.mean};
  }
};

}  // namespace torch_core::engine
