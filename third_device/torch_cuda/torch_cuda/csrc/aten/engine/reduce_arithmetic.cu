// The CUDA engine's arithmetic reductions: sum, nansum, prod, mean, norm, var/std.
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_reduce_executor.cuh"

namespace torch_cuda::engine {

TORCH_CUDA_DEFINE_REDUCE(Sum)
TORCH_CUDA_DEFINE_REDUCE(NanSum)
TORCH_CUDA_DEFINE_REDUCE(Prod)
TORCH_CUDA_DEFINE_REDUCE(Mean)
TORCH_CUDA_DEFINE_REDUCE(Norm)
TORCH_CUDA_DEFINE_REDUCE(StdVar)

}  // namespace torch_cuda::engine
