// The kernels behind torch_cuda's native reduction operators on the CUDA
// key, as entry points each variant defines (a sibling of framework/variant.h, the same
// link-time choice):
//   real       csrc/aten/cuda_native_kernels.cpp: loop_kernels.h's CUDA launchers
//   simulated  simulated/csrc/native_kernels.cpp: loop_ops.h's functors in torch_core's
//              host loops (kernel_loop.h) on the simulated stream's worker
// The operators (native_ops.cpp, shared) build the loops with torch_core's tensor_loop.h
// and pick dtypes; only the combinations listed below reach these functions (the
// operators fall back to the CPU for the rest), so both variants cover the same cases.
#pragma once

#include <c10/core/ScalarType.h>

#include "torch_core/aten/kernel_loop.h"
#include "torch_core/runtime/device_runtime.h"

namespace torch_cuda::variant {

enum class ReduceOp { kSum, kAmax };

// Queues a reduction in kernel_loop.h's layout (torch_core::make_reduce_loops):
//   sum   (out, in): (float, float) (double, double) (int64, int64) (int64, int32)
//   amax  out == in: float, double, int32, int64 (NaN propagates)
void launch_reduce(ReduceOp op, c10::ScalarType out_dtype, c10::ScalarType in_dtype,
                   const torch_core::loop::StridedLoop<2>& outer, const torch_core::loop::StridedLoop<1>& inner,
                   torch_core::StreamHandle stream);

}  // namespace torch_cuda::variant
