// A CUDA source with a .cpp name: rules_cuda compiles every source of a cuda_library with
// nvcc as CUDA, whatever its extension.
#include "fill.h"

namespace {

__global__ void fill_kernel(int n, float value, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

}  // namespace

cudaError_t fill_on_device(int n, float value, float* host_out) {
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  float* device_out = nullptr;
  cudaError_t status = cudaMalloc(&device_out, bytes);
  if (status == cudaSuccess) {
    fill_kernel<<<(n + 127) / 128, 128>>>(n, value, device_out);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) status = cudaMemcpy(host_out, device_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(device_out);
  return status;
}
