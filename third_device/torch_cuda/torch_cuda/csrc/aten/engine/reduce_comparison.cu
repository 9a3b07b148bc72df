// The CUDA engine's comparison reductions: amax/amin, argmax/argmin, all/any.
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_reduce_executor.cuh"

namespace torch_cuda::engine {

TORCH_CUDA_DEFINE_REDUCE(MaxValues)
TORCH_CUDA_DEFINE_REDUCE(MinValues)
TORCH_CUDA_DEFINE_REDUCE(ArgMax)
TORCH_CUDA_DEFINE_REDUCE(ArgMin)
TORCH_CUDA_DEFINE_REDUCE(All)
TORCH_CUDA_DEFINE_REDUCE(Any)

}  // namespace torch_cuda::engine
