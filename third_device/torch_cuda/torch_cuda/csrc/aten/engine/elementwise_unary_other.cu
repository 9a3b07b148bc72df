// The CUDA engine's unary other operations (TORCH_CORE_UNARY_OTHER_OPS).
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"

namespace torch_cuda::engine {

TORCH_CORE_UNARY_OTHER_OPS(TORCH_CUDA_DEFINE_ELEMENTWISE)

}  // namespace torch_cuda::engine
