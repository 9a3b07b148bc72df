// torch_core's kernel engine for the real variant: torch_core's stub kernels as GPU
// kernels (elementwise_<group>.cu) on the current CUDA stream of the iterator's device.
#pragma once

namespace torch_cuda::engine {

// Registers the CUDA engine for the CUDA device type (and fills its stub slots).
void register_cuda_engine();

}  // namespace torch_cuda::engine
