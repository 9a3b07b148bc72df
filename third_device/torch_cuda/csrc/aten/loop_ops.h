// The functors of torch_cuda's native elementwise and reduction kernels, written once for
// host and device (TORCH_CORE_HOST_DEVICE). The same definitions run
//   on the host  in torch_core's kernel_loop.h loops (the simulated variant, the CPU tests'
//                reference), and
//   on the GPU   in cuda_loop.cuh's loops (loop_kernels.cu).
// Plain C++ with no CUDA header, so code compiled by the C++ toolchain includes it too.
//
// Each functor takes and returns element values; the loops do the loads and stores and
// the caller does broadcasting and type promotion (as in kernel_loop.h).
#pragma once

#include <cstdint>

#include "torch_core/aten/host_device.h"

namespace torch_cuda::ops {

// out = a + alpha * b (torch.add's alpha); Sub is a - alpha * b.
template <typename T>
struct Add {
  T alpha;
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a + alpha * b); }
};

template <typename T>
struct Sub {
  T alpha;
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a - alpha * b); }
};

template <typename T>
struct Mul {
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a * b); }
};

// True division (floating types only: torch.div of integers promotes to float first,
// which is the caller's job; integer division by zero would trap on the device).
template <typename T>
struct Div {
  TORCH_CORE_HOST_DEVICE T operator()(T a, T b) const { return a / b; }
};

// A loop with no inputs: every output element becomes `value`.
template <typename T>
struct Fill {
  T value;
  TORCH_CORE_HOST_DEVICE T operator()() const { return value; }
};

template <typename T>
struct Identity {
  TORCH_CORE_HOST_DEVICE T operator()(T a) const { return a; }
};

// Reduction combiners: acc = op(acc, value), associative and commutative, so any
// grouping (the GPU's tree, the host's left fold) gives the same result up to rounding.
template <typename Acc>
struct SumOp {
  TORCH_CORE_HOST_DEVICE Acc operator()(Acc a, Acc b) const { return a + b; }
};

// amax: NaN propagates (as torch.amax): once either side is NaN the result is NaN.
// `x != x` is NaN-only and always false for integers.
template <typename Acc>
struct MaxOp {
  TORCH_CORE_HOST_DEVICE Acc operator()(Acc a, Acc b) const {
    if (a != a) return a;
    if (b != b) return b;
    return a < b ? b : a;
  }
};

// Element types of a byte-pattern fill/copy of any dtype: only the width matters.
struct alignas(8) Bytes16 {
  std::uint64_t lo, hi;
};

}  // namespace torch_cuda::ops
