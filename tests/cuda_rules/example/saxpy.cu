#include "saxpy.h"

#include "device_math.cuh"

#ifndef EXAMPLE_DEVICE_DEFINE
#error "defines of a cuda_objects dep must reach the CUDA compiles that depend on it"
#endif
#ifndef SAXPY_LOCAL_DEFINE
#error "local_defines must reach the target's own compiles"
#endif
#ifndef SAXPY_HOST_LOCAL_DEFINE
#error "host_local_defines must reach the target's own compiles"
#endif

namespace {

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scaled_add(a, x[i], y[i]);
}

}  // namespace

cudaError_t saxpy_on_device(int n, float a, const float* x, float* y) {
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  float* device_x = nullptr;
  float* device_y = nullptr;
  cudaError_t status = cudaMalloc(&device_x, bytes);
  if (status == cudaSuccess) status = cudaMalloc(&device_y, bytes);
  if (status == cudaSuccess) status = cudaMemcpy(device_x, x, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) status = cudaMemcpy(device_y, y, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) {
    saxpy_kernel<<<(n + 127) / 128, 128>>>(n, a, device_x, device_y);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) status = cudaMemcpy(y, device_y, bytes, cudaMemcpyDeviceToHost);
  cudaFree(device_x);
  cudaFree(device_y);
  return status;
}
