// A kernel that keeps a stream busy for a number of GPU clock cycles: torch.cuda._sleep,
// which tests of stream ordering use to make work take a while. Torch-free.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace torch_cuda {

void launch_spin(std::int64_t cycles, cudaStream_t stream);

}  // namespace torch_cuda
