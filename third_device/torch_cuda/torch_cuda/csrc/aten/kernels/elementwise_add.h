// out[i] = a[i] + alpha * b[i] on the GPU, on raw contiguous pointers.
// Torch-free so it is tested with nothing but nvcc (see tests/cuda).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace torch_cuda {

void launch_add_f32(const float* a, const float* b, float alpha, float* out, std::int64_t n,
                    cudaStream_t stream);

}  // namespace torch_cuda
