// native_kernels.h for the real variant: csrc/aten's CUDA loop kernels (loop_kernels.h),
// queued on the stream the operator passes (the current CUDA stream: a StreamHandle of
// CudaRuntime is a cudaStream_t).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include <c10/util/Exception.h>

#include "third_device/torch_cuda/csrc/aten/loop_kernels.h"
#include "third_device/torch_cuda/csrc/aten/native_kernels.h"

namespace torch_cuda::variant {

void launch_reduce(ReduceOp op, c10::ScalarType out_dtype, c10::ScalarType in_dtype,
                   const torch_core::loop::StridedLoop<2>& outer, const torch_core::loop::StridedLoop<1>& inner,
                   torch_core::StreamHandle stream) {
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  if (op == ReduceOp::kSum) {
    if (out_dtype == c10::kFloat && in_dtype == c10::kFloat) return kernels::sum<float, float>(outer, inner, cuda_stream);
    if (out_dtype == c10::kDouble && in_dtype == c10::kDouble) {
      return kernels::sum<double, double>(outer, inner, cuda_stream);
    }
    if (out_dtype == c10::kLong && in_dtype == c10::kLong) {
      return kernels::sum<int64_t, int64_t>(outer, inner, cuda_stream);
    }
    if (out_dtype == c10::kLong && in_dtype == c10::kInt) {
      return kernels::sum<int64_t, int32_t>(outer, inner, cuda_stream);
    }
  } else if (out_dtype == in_dtype) {
    switch (in_dtype) {
      case c10::kFloat:
        return kernels::amax<float>(outer, inner, cuda_stream);
      case c10::kDouble:
        return kernels::amax<double>(outer, inner, cuda_stream);
      case c10::kInt:
        return kernels::amax<int32_t>(outer, inner, cuda_stream);
      case c10::kLong:
        return kernels::amax<int64_t>(outer, inner, cuda_stream);
      default:
        break;
    }
  }
  TORCH_INTERNAL_ASSERT(false, "torch_cuda reduce kernel: unexpected dtypes ", out_dtype, " <- ", in_dtype);
}

}  // namespace torch_cuda::variant
