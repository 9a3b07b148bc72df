#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/elementwise_add.h"

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda {
namespace {

constexpr int kThreadsPerBlock = 256;
// Enough blocks to fill any current GPU; each thread then strides over the rest.
constexpr std::int64_t kMaxBlocks = 65535;

__global__ void add_f32_kernel(const float* __restrict__ a, const float* __restrict__ b,
                               float alpha, float* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = a[i] + alpha * b[i];
  }
}

}  // namespace

void launch_add_f32(const float* a, const float* b, float alpha, float* out, std::int64_t n,
                    cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  std::int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > kMaxBlocks) {
    blocks = kMaxBlocks;
  }
  add_f32_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(a, b, alpha, out,
                                                                                 n);
  TORCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace torch_cuda
