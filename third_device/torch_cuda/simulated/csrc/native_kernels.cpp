// native_kernels.h for the simulated variant: loop_ops.h's functors, the ones the GPU
// loops run, in torch_core's host loops (kernel_loop.h) on the simulated stream's worker.
#include <cstdint>
#include <limits>
#include <type_traits>

#include <c10/util/Exception.h>

#include "third_device/torch_cuda/csrc/aten/loop_ops.h"
#include "third_device/torch_cuda/csrc/aten/native_kernels.h"
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"
#include "torch_core/aten/kernel_loop.h"

namespace torch_cuda::variant {

namespace {

namespace loop = torch_core::loop;

// Sums accumulate in Acc: the GPU folds float in float along a tree; the host folds left
// to right, whose float error grows with the length, so float accumulates in double here
// (closer to the GPU's tree than a float left fold).
template <typename Out, typename In, typename Acc>
void sum_typed(const loop::StridedLoop<2>& outer, const loop::StridedLoop<1>& inner, torch_core::StreamHandle stream) {
  simulated::launch(stream, [outer, inner] { loop::reduce<Out, In, Acc>(outer, inner, Acc(0), ops::SumOp<Acc>{}); });
}

template <typename T>
void amax_typed(const loop::StridedLoop<2>& outer, const loop::StridedLoop<1>& inner, torch_core::StreamHandle stream) {
  // The identity of max: -inf for floating types, the lowest value for integers.
  const T init = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                      : std::numeric_limits<T>::lowest();
  simulated::launch(stream, [outer, inner, init] { loop::reduce<T, T, T>(outer, inner, init, ops::MaxOp<T>{}); });
}

}  // namespace

void launch_reduce(ReduceOp op, c10::ScalarType out_dtype, c10::ScalarType in_dtype,
                   const loop::StridedLoop<2>& outer, const loop::StridedLoop<1>& inner,
                   torch_core::StreamHandle stream) {
  if (op == ReduceOp::kSum) {
    if (out_dtype == c10::kFloat && in_dtype == c10::kFloat) return sum_typed<float, float, double>(outer, inner, stream);
    if (out_dtype == c10::kDouble && in_dtype == c10::kDouble) {
      return sum_typed<double, double, double>(outer, inner, stream);
    }
    if (out_dtype == c10::kLong && in_dtype == c10::kLong) {
      return sum_typed<int64_t, int64_t, int64_t>(outer, inner, stream);
    }
    if (out_dtype == c10::kLong && in_dtype == c10::kInt) {
      return sum_typed<int64_t, int32_t, int64_t>(outer, inner, stream);
    }
  } else if (out_dtype == in_dtype) {
    switch (in_dtype) {
      case c10::kFloat:
        return amax_typed<float>(outer, inner, stream);
      case c10::kDouble:
        return amax_typed<double>(outer, inner, stream);
      case c10::kInt:
        return amax_typed<int32_t>(outer, inner, stream);
      case c10::kLong:
        return amax_typed<int64_t>(outer, inner, stream);
      default:
        break;
    }
  }
  TORCH_INTERNAL_ASSERT(false, "torch_cuda reduce kernel: unexpected dtypes ", out_dtype, " <- ", in_dtype);
}

}  // namespace torch_cuda::variant
