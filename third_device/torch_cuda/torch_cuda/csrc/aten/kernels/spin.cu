#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/spin.h"

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda {
namespace {

__global__ void spin_kernel(std::int64_t cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void launch_spin(std::int64_t cycles, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(cycles);
  TORCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace torch_cuda
